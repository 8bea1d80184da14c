import { fileNameOf } from './imported';
import { concatBytes, crc32 } from './png';

/**
 * A small ZIP writer and reader (PKWARE APPNOTE): enough for dataset exports and imports without a
 * dependency. The writer stores entries uncompressed (PNGs are compressed already, label files are
 * small); the reader takes stored and deflated entries (the platform's `DecompressionStream`), so
 * zips made by other tools can be imported too.
 */

export interface ZipEntry {
  readonly name: string;
  readonly data: Uint8Array;
}

const encoder = new TextEncoder();

export function textEntry(name: string, text: string): ZipEntry {
  return { name, data: encoder.encode(text) };
}

/** MS-DOS date and time of `date` (local clock, 2-second steps); the earliest a DOS date holds is 1980-01-01. */
export function dosDateTime(date: Date): { date: number; time: number } {
  const year = Math.min(2107, Math.max(1980, date.getFullYear()));
  return {
    date: ((year - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
    time: (date.getHours() << 11) | (date.getMinutes() << 5) | (date.getSeconds() >> 1),
  };
}

/**
 * The entry path a zip may hold whatever name it was given: each folder and the file name made safe
 * as `fileNameOf` makes a name (no controls, no bidirectional overrides), `.`, `..` and empty
 * segments dropped, so no entry unpacks outside the folder it is unpacked into.
 */
export function safeEntryPath(path: string): string {
  const segments = path.split(/[\\/]+/).filter((s) => s !== '' && s !== '.' && s !== '..');
  return segments.length ? segments.map(fileNameOf).join('/') : 'file';
}

/** Entries are dated `modified` (default now): an all-zero DOS date reads as 1980-00-00, an invalid date. */
export function writeZip(entries: readonly ZipEntry[], modified: Date = new Date()): Uint8Array {
  const stamp = dosDateTime(modified);
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = encoder.encode(safeEntryPath(entry.name));
    const crc = crc32(entry.data);
    const local = new Uint8Array(30 + name.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(6, 0x0800, true); // UTF-8 names
    lv.setUint16(10, stamp.time, true);
    lv.setUint16(12, stamp.date, true);
    lv.setUint32(14, crc, true);
    lv.setUint32(18, entry.data.length, true);
    lv.setUint32(22, entry.data.length, true);
    lv.setUint16(26, name.length, true);
    local.set(name, 30);
    const central = new Uint8Array(46 + name.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(8, 0x0800, true);
    cv.setUint16(12, stamp.time, true);
    cv.setUint16(14, stamp.date, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, entry.data.length, true);
    cv.setUint32(24, entry.data.length, true);
    cv.setUint16(28, name.length, true);
    cv.setUint32(42, offset, true);
    central.set(name, 46);
    locals.push(local, entry.data);
    centrals.push(central);
    offset += local.length + entry.data.length;
  }
  const centralSize = centrals.reduce((n, c) => n + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, entries.length, true);
  ev.setUint16(10, entries.length, true);
  ev.setUint32(12, centralSize, true);
  ev.setUint32(16, offset, true);
  return concatBytes([...locals, ...centrals, end]);
}

async function inflateRaw(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data as BlobPart]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export async function readZip(bytes: Uint8Array): Promise<ZipEntry[]> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error('not a zip file');
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const decoder = new TextDecoder();
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (view.getUint32(at, true) !== 0x02014b50) throw new Error('broken zip directory');
    const method = view.getUint16(at + 10, true);
    const compressedSize = view.getUint32(at + 20, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const localOffset = view.getUint32(at + 42, true);
    const name = decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    const dataStart = localOffset + 30 + view.getUint16(localOffset + 26, true) + view.getUint16(localOffset + 28, true);
    const raw = bytes.subarray(dataStart, dataStart + compressedSize);
    if (!name.endsWith('/')) {
      if (method === 0) entries.push({ name, data: raw.slice() });
      else if (method === 8) entries.push({ name, data: await inflateRaw(raw) });
      else throw new Error(`${name}: zip compression method ${method} is not supported`);
    }
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
