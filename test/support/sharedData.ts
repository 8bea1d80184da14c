/**
 * Where tests, evaluation and benchmarks find the workplace's shared data (sample photos, evaluation
 * sets): `../shared` beside the repository, wherever the clone lives, or MASKWRIGHT_SHARED.
 * The data is read in place and never copied into the project.
 */
import { resolve } from 'node:path';

const REPO_ROOT = resolve(import.meta.dirname, '../..');

export const SHARED_DIR = resolve(process.env.MASKWRIGHT_SHARED ?? resolve(REPO_ROOT, '../shared'));

/** An absolute path under the shared data directory, e.g. `sharedPath('samples/coffee.png')`. */
export function sharedPath(relative: string): string {
  return resolve(SHARED_DIR, relative);
}
