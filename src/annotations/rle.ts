import type { BinaryMask } from '../engine/types';

/**
 * COCO run-length encoding, as pycocotools' mask API defines it: the mask read column by column
 * (Fortran order), runs alternating 0 and 1 starting with 0 (a first run of 0 when the first pixel
 * is set). Uncompressed RLE is `{ size: [h, w], counts: number[] }`; compressed RLE is the same runs
 * written as a string: each run minus the run two before it (from the fourth run on), in 5-bit
 * groups, least significant first, the 0x20 bit saying "more follows", each group + 48 as a
 * character (a variable-length signed integer in ASCII).
 */
export interface CocoRle {
  readonly size: [number, number];
  readonly counts: number[] | string;
}

/**
 * The order pixels are read in: `columns` is COCO's (pycocotools reads Fortran order); `rows` is the
 * project wire format's (src/annotations/wire.ts), the order masks are held in memory.
 */
export type PixelOrder = 'rows' | 'columns';

/** Run lengths of the mask read in `order`, alternating 0 and 1, starting with a run of 0s (possibly empty). */
export function maskToRuns(mask: BinaryMask, order: PixelOrder = 'columns'): number[] {
  const { width, height, data } = mask;
  const runs: number[] = [];
  let value = 0;
  let run = 0;
  const total = width * height;
  for (let k = 0; k < total; k++) {
    const index = order === 'rows' ? k : (k % height) * width + Math.floor(k / height);
    const v = data[index] ? 1 : 0;
    if (v !== value) {
      runs.push(run);
      run = 0;
      value = v;
    }
    run++;
  }
  runs.push(run);
  return runs;
}

/** The mask the runs describe; refused when the runs do not cover exactly width × height pixels. */
export function runsToMask(runs: readonly number[], height: number, width: number, order: PixelOrder = 'columns'): BinaryMask {
  const total = width * height;
  const covered = runs.reduce((a, b) => a + b, 0);
  if (covered !== total) throw new Error(`RLE runs cover ${covered} pixels, the size says ${total}`);
  const data = new Uint8Array(total);
  let at = 0;
  runs.forEach((run, i) => {
    if (i % 2 === 1) {
      if (order === 'rows') data.fill(1, at, at + run);
      else
        for (let k = at; k < at + run; k++) {
          const x = Math.floor(k / height);
          data[(k - x * height) * width + x] = 1;
        }
    }
    at += run;
  });
  return { width, height, data };
}

export function encodeRunsString(runs: readonly number[]): string {
  let out = '';
  for (let i = 0; i < runs.length; i++) {
    let x = runs[i];
    if (i > 2) x -= runs[i - 2];
    let more = true;
    while (more) {
      let c = x & 0x1f;
      x >>= 5;
      more = c & 0x10 ? x !== -1 : x !== 0;
      if (more) c |= 0x20;
      out += String.fromCharCode(c + 48);
    }
  }
  return out;
}

export function decodeRunsString(text: string): number[] {
  const runs: number[] = [];
  let p = 0;
  while (p < text.length) {
    let x = 0;
    let k = 0;
    let more = true;
    while (more) {
      if (p >= text.length) throw new Error('compressed RLE ends inside a number');
      const c = text.charCodeAt(p) - 48;
      x |= (c & 0x1f) << (5 * k);
      more = (c & 0x20) !== 0;
      p++;
      k++;
      if (!more && c & 0x10) x |= -1 << (5 * k);
    }
    if (runs.length > 2) x += runs[runs.length - 2];
    runs.push(x);
  }
  return runs;
}

export function maskToRle(mask: BinaryMask, compressed: boolean): CocoRle {
  const runs = maskToRuns(mask);
  return { size: [mask.height, mask.width], counts: compressed ? encodeRunsString(runs) : runs };
}

export function rleToMask(rle: CocoRle): BinaryMask {
  const [height, width] = rle.size;
  const runs = typeof rle.counts === 'string' ? decodeRunsString(rle.counts) : rle.counts;
  return runsToMask(runs, height, width);
}
