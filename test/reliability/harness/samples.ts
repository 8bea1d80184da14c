/** Real sample images, read in place from the shared samples folder (never copied). */
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './serverProcess';

export const SAMPLES_DIR = process.env.MASKWRIGHT_SAMPLES ?? path.resolve(REPO_ROOT, '../shared/samples');

export interface SampleImage {
  readonly file: string;
  readonly mediaType: string;
  readonly bytes: Buffer;
  /** Plain Base64, no data-URI prefix. */
  readonly base64: string;
  readonly dataUri: string;
}

const cache = new Map<string, SampleImage>();

export function sampleImage(file = 'chelsea.png'): SampleImage {
  const cached = cache.get(file);
  if (cached) return cached;
  const candidates = [path.join(SAMPLES_DIR, file), path.join(REPO_ROOT, 'public/samples', file)];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new Error(`sample image ${file} not found in ${candidates.join(' or ')}`);
  const bytes = readFileSync(found);
  const mediaType = file.endsWith('.png') ? 'image/png' : 'image/jpeg';
  const base64 = bytes.toString('base64');
  const image = { file: found, mediaType, bytes, base64, dataUri: `data:${mediaType};base64,${base64}` };
  cache.set(file, image);
  return image;
}
