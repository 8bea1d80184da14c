/**
 * Names from anywhere (an upload, a file imported from someone else, the API) written by every
 * format: XML stays well-formed (judged by expat, Python's XML parser, where python3 is installed),
 * no zip entry, `file_name` or `imagePath` climbs out of its folder or hides its extension behind a
 * bidirectional override, and a NUL truncates nothing.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { Annotation, ImageEntry } from '../annotation';
import { sessionDataset } from './dataset';
import { fileNameOf, type InputFile } from './imported';
import { readCvat } from './cvat';
import { FORMATS } from './registry';
import { readDatasetFiles } from './readFiles';
import { escapeXml, parseXml } from './xml';
import { readZip, safeEntryPath, writeZip } from './zip';

const probe = spawnSync('python3', ['-c', 'import xml.parsers.expat'], { encoding: 'utf8' });
const expatAvailable = probe.status === 0;
if (!expatAvailable) console.warn('unsafeNames.test.ts: the expat judge is skipped: python3 is not installed');

/** expat's verdict on a document: null when well-formed, else its error. */
function expatError(xml: string): string | null {
  const judge = spawnSync('python3', ['-c', 'import sys, xml.parsers.expat as e\np = e.ParserCreate()\ntry:\n  p.Parse(sys.stdin.buffer.read(), True)\nexcept e.ExpatError as x:\n  print(x)'], { input: Buffer.from(xml, 'utf8') });
  const out = judge.stdout.toString().trim();
  return out === '' ? null : out;
}

const HOSTILE_IMAGE = '../../etc/pass\u0000wd\u202Egnp.jpg';
const HOSTILE_CLASS = 'clo\u0000ck <&> "\u0007\u001b\ttab\nline\ufffe';
const image: ImageEntry = { id: 'img-1', name: HOSTILE_IMAGE, width: 20, height: 10 };
const square: Annotation = { id: 'a', label: 'la\u0000bel', classId: 1, confidence: 1, color: '#f00', visible: true, source: 'local', polygons: [{ outer: [[2, 2], [8, 2], [8, 8], [2, 8]], holes: [] }] };
const dataset = sessionDataset({ images: [image], objects: { [image.id]: [square] }, classes: [{ id: 1, name: HOSTILE_CLASS, color: '#f00' }] }, { includeHidden: true });
const withPhoto = { ...dataset, images: dataset.images.map((e) => ({ ...e, bytes: new Uint8Array([1, 2, 3]) })) };

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const SAFE_NAME = 'passwdgnp.jpg'; // the last segment, controls and overrides removed

async function filesOf(formatId: string): Promise<InputFile[]> {
  const format = FORMATS.find((f) => f.id === formatId)!;
  const file = await format.write(withPhoto, {});
  return /zip/.test(file.mime) ? (await readZip(file.bytes)).map((e) => ({ name: e.name, bytes: e.data })) : [{ name: file.name, bytes: file.bytes }];
}

describe('file names written by every format', () => {
  it('the last segment without controls or bidirectional overrides', () => {
    expect(fileNameOf(HOSTILE_IMAGE)).toBe(SAFE_NAME);
    expect(fileNameOf('..')).toBe('image');
    expect(fileNameOf('a\\..\\b.png')).toBe('b.png');
    expect(safeEntryPath('JPEGImages/../../x\u0000y.png')).toBe('JPEGImages/xy.png');
    expect(safeEntryPath('/abs/./p.png')).toBe('abs/p.png');
  });

  it.each(FORMATS.map((f) => f.id))('%s: no entry climbs out, none holds a control or an override', async (formatId) => {
    for (const { name } of await filesOf(formatId)) {
      expect(name.split('/'), name).not.toContain('..');
      expect(name.startsWith('/'), name).toBe(false);
      expect(UNSAFE.test(name), JSON.stringify(name)).toBe(false);
    }
  });

  it('COCO file_name, LabelMe imagePath, the PNG-masks legend and our JSON name the photo by its safe base name', async () => {
    const json = async (formatId: string, pick: (f: InputFile) => boolean) => JSON.parse(new TextDecoder().decode((await filesOf(formatId)).find(pick)!.bytes));
    expect((await json('coco', () => true)).images[0].file_name).toBe(SAFE_NAME);
    expect((await json('labelme', (f) => f.name.endsWith('.json'))).imagePath).toBe(SAFE_NAME);
    expect((await json('png-masks', (f) => f.name.endsWith('.legend.json'))).image).toBe(SAFE_NAME);
    expect((await json('maskwright', () => true)).images[0].name).toBe(SAFE_NAME);
    expect((await filesOf('voc')).map((f) => f.name)).toContain(`JPEGImages/${SAFE_NAME}`);
  });

  it('a zip entry keeps its whole name past a NUL', async () => {
    const [entry] = await readZip(writeZip([{ name: 'labels/a\u0000b.txt', data: new Uint8Array() }]));
    expect(entry.name).toBe('labels/ab.txt');
  });
});

describe('XML (CVAT, Pascal VOC) with control characters in names', () => {
  it('escapes what XML can hold and shows what it cannot as its control picture', () => {
    expect(escapeXml('a\u0000b\u0007<&>"\'\t\n\r\ufffe')).toBe('a\u2400b\u2407&lt;&amp;&gt;&quot;&apos;&#9;&#10;&#13;\ufffd');
  });

  const xmlFiles = async () => [...(await filesOf('cvat')), ...(await filesOf('voc')).filter((f) => f.name.endsWith('.xml'))].map((f) => new TextDecoder().decode(f.bytes));

  it.skipIf(!expatAvailable)('every XML file is well-formed to expat', async () => {
    const files = await xmlFiles();
    expect(files).toHaveLength(2);
    for (const xml of files) expect(expatError(xml)).toBeNull();
  });

  it('the class name reads back with its printable characters, tab and line break kept', async () => {
    const [cvat] = await xmlFiles();
    const label = readCvat(cvat).categories[0].name;
    expect(label).toBe('clo\u2400ck <&> "\u2407\u241b\ttab\nline\ufffd');
    expect(() => parseXml(cvat)).not.toThrow();
  });
});

describe('line-based class lists (VOC labelmap.txt, LabelMe labels.txt) with a line break in a name', () => {
  it.each(['voc', 'labelme'])('%s: the class keeps its id and its objects their class', async (formatId) => {
    const read = (await readDatasetFiles(await filesOf(formatId))).dataset;
    expect(read.categories.map((c) => c.id)).toEqual([1]);
    expect(read.annotations.map((a) => a.className)).toEqual([read.categories[0].name]);
  });
});
