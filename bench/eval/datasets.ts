/**
 * Dataset readers: each sample is a photo plus per-pixel ground truth (1 object, 0 background,
 * -1 ignore), matched by file stem. Data are read in place (../shared/eval), never copied.
 */
import { readdir, readFile } from 'node:fs/promises';
import { extname, basename, join } from 'node:path';
import sharp from 'sharp';
import type { RgbaImage } from '../../src/engine/types';
import { decodeBmp } from './bmp';
import type { GroundTruth } from './clicker';
import { readPngLabels } from './pngLabels';

export type DatasetName = 'grabcut' | 'davis' | 'coco-mval';

export interface Sample {
  readonly name: string;
  readonly imagePath: string;
  readonly truthPath: string;
  loadImage(): Promise<RgbaImage>;
  loadTruth(): Promise<GroundTruth>;
}

/** Decodes a photo to RGBA. BMP by our own reader (libvips has none), everything else by sharp. */
export async function readImage(path: string): Promise<RgbaImage> {
  const bytes = await readFile(path);
  if (extname(path).toLowerCase() === '.bmp') {
    const bmp = decodeBmp(bytes);
    return { width: bmp.width, height: bmp.height, data: bmp.rgba };
  }
  // No .rotate(): ground truth is aligned with the stored pixels, not the EXIF-oriented view.
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 4) throw new Error(`${path}: expected 4 channels after ensureAlpha, got ${info.channels}`);
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

/** GrabCut mask values: 255 object, 128 the ignore band along the boundary, 0 background. */
export function grabcutTruth(gray: { width: number; height: number; values: (i: number) => number }): GroundTruth {
  const labels = new Int8Array(gray.width * gray.height);
  for (let i = 0; i < labels.length; i++) {
    const v = gray.values(i);
    // Same mapping as RITM's GrabCut loader: ==128 ignore, >128 object.
    labels[i] = v === 128 ? -1 : v > 128 ? 1 : 0;
  }
  return { width: gray.width, height: gray.height, labels };
}

export async function readGrabcutMask(path: string): Promise<GroundTruth> {
  const bmp = decodeBmp(await readFile(path));
  return grabcutTruth({ width: bmp.width, height: bmp.height, values: (i) => bmp.rgba[i * 4] });
}

/** DAVIS ground truth: the object is every pixel with a non-zero palette index. */
export async function readDavisMask(path: string): Promise<GroundTruth> {
  const png = readPngLabels(await readFile(path));
  const labels = new Int8Array(png.width * png.height);
  for (let i = 0; i < labels.length; i++) labels[i] = png.labels[i] !== 0 ? 1 : 0;
  return { width: png.width, height: png.height, labels };
}

const IMAGE_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png', '.bmp']);

async function pairByStem(
  imageDir: string,
  truthDir: string,
  truthExtension: string,
  readTruth: (path: string) => Promise<GroundTruth>,
): Promise<Sample[]> {
  const stem = (file: string) => basename(file, extname(file));
  const truths = new Map(
    (await readdir(truthDir)).filter((f) => extname(f).toLowerCase() === truthExtension).map((f) => [stem(f), join(truthDir, f)]),
  );
  const images = (await readdir(imageDir)).filter((f) => IMAGE_EXTENSIONS.has(extname(f).toLowerCase())).sort();
  const samples: Sample[] = [];
  for (const file of images) {
    const truthPath = truths.get(stem(file));
    if (!truthPath) throw new Error(`no ground truth for ${join(imageDir, file)} in ${truthDir}`);
    const imagePath = join(imageDir, file);
    samples.push({
      name: stem(file),
      imagePath,
      truthPath,
      loadImage: () => readImage(imagePath),
      loadTruth: () => readTruth(truthPath),
    });
  }
  if (samples.length === 0) throw new Error(`no images found in ${imageDir}`);
  return samples;
}

/** Lists a dataset's samples in a stable (sorted by file name) order. */
export async function listSamples(dataset: DatasetName, dir: string): Promise<Sample[]> {
  switch (dataset) {
    case 'grabcut':
      return pairByStem(join(dir, 'images'), join(dir, 'masks'), '.bmp', readGrabcutMask);
    case 'davis':
    case 'coco-mval':
      return pairByStem(join(dir, 'img'), join(dir, 'gt'), '.png', readDavisMask);
  }
}
