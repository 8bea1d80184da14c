/**
 * `label` as users run it, on real raccoon photos (a class no shipped detector names), read in place
 * from the shared evaluation data: a child process, the written COCO file checked, exit codes checked.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedPath } from '../../test/support/sharedData';

const repoRoot = resolve(__dirname, '../..');
const tsx = join(repoRoot, 'node_modules/.bin/tsx');
const RACCOON = sharedPath('eval/raccoon');
const EXAMPLES = ['raccoon-1.jpg', 'raccoon-10.jpg', 'raccoon-100.jpg'];
const OTHERS = ['raccoon-101.jpg', 'raccoon-102.jpg'];

interface CocoFile {
  images: { id: number; file_name: string; width: number; height: number }[];
  annotations: { id: number; image_id: number; category_id: number; bbox: number[]; score?: number; attributes?: Record<string, unknown> }[];
  categories: { id: number; name: string }[];
}

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(tsx, ['src/cli/main.ts', ...args], { cwd: repoRoot, timeout: 900_000 }, (err, stdout, stderr) => {
      done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

function boxIoU(a: readonly number[], b: readonly number[]): number {
  const w = Math.max(0, Math.min(a[0] + a[2], b[0] + b[2]) - Math.max(a[0], b[0]));
  const h = Math.max(0, Math.min(a[1] + a[3], b[1] + b[3]) - Math.max(a[1], b[1]));
  return (w * h) / (a[2] * a[3] + b[2] * b[3] - w * h);
}

/** A folder of links to the shared photos (nothing copied) and the ground truth of the example photos as the person's labels. */
async function workspace() {
  const dir = await mkdtemp(join(tmpdir(), 'maskwright-label-'));
  const images = join(dir, 'images');
  await mkdir(images);
  for (const name of [...EXAMPLES, ...OTHERS]) await symlink(join(RACCOON, 'images', name), join(images, name));
  const truth = JSON.parse(await readFile(join(RACCOON, 'instances.json'), 'utf8')) as CocoFile;
  const labelled = truth.images.filter((i) => EXAMPLES.includes(i.file_name));
  const ids = new Set(labelled.map((i) => i.id));
  const examples = join(dir, 'labelled.coco.json');
  await writeFile(examples, JSON.stringify({ ...truth, images: labelled, annotations: truth.annotations.filter((a) => ids.has(a.image_id)) }));
  return { dir, images, examples, out: join(dir, 'proposals.coco.json'), truth };
}

describe.skipIf(!existsSync(join(RACCOON, 'instances.json')))('cli label', () => {
  it('learns "raccoon" from three labelled photos and proposes raccoons with scores on the others, progress on stderr', async () => {
    const { images, examples, out, truth } = await workspace();
    const { code, stdout, stderr } = await cli('label', '--images', images, '--examples', examples, '--out', out, '--threads', '2');
    expect(code, stderr).toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/\[label\] learned from raccoon-1\.jpg \(1\/3\)/);
    expect(stderr).toMatch(/\[label\] 2\/2 raccoon-102\.jpg/);
    const proposals = JSON.parse(await readFile(out, 'utf8')) as CocoFile;
    expect(proposals.images.map((i) => i.file_name).sort()).toEqual(OTHERS);
    expect(proposals.categories.map((c) => c.name)).toEqual(['raccoon']);
    expect(proposals.annotations.length).toBeGreaterThan(0);
    for (const a of proposals.annotations) {
      expect(a.score).toBeGreaterThan(0);
      expect(a.score).toBeLessThanOrEqual(1);
      expect(a.attributes).toMatchObject({ review_state: 'unreviewed', review_source: 'learned', label: 'raccoon' });
    }
    // At least one proposal is a raccoon of the ground truth (box IoU ≥ 0.5, the eval's rule).
    const hits = proposals.annotations.filter((a) => {
      const name = proposals.images.find((i) => i.id === a.image_id)!.file_name;
      const imageId = truth.images.find((i) => i.file_name === name)!.id;
      return truth.annotations.some((g) => g.image_id === imageId && boxIoU(g.bbox, a.bbox) >= 0.5);
    });
    expect(hits.length).toBeGreaterThan(0);
  }, 900_000);

  it('names what is wrong with exit code 2 and writes nothing: a missing folder, examples that are not JSON, no examples in the folder', async () => {
    const { dir, images, examples, out } = await workspace();
    const missing = await cli('label', '--images', join(dir, 'nowhere'), '--examples', examples, '--out', out);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--images .*nowhere: no such folder/);
    const badJson = join(dir, 'bad.json');
    await writeFile(badJson, '{"images": [');
    const bad = await cli('label', '--images', images, '--examples', badJson, '--out', out);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not JSON/);
    const elsewhere = join(dir, 'elsewhere.json');
    await writeFile(elsewhere, JSON.stringify({ images: [{ id: 1, file_name: 'not-here.jpg', width: 10, height: 10 }], annotations: [{ id: 1, image_id: 1, category_id: 1, bbox: [1, 1, 5, 5], segmentation: [] }], categories: [{ id: 1, name: 'raccoon' }] }));
    const none = await cli('label', '--images', images, '--examples', elsewhere, '--out', out);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no examples to learn from: none of its 1 labelled photos is in the folder/);
    const usage = await cli('label', '--images', images, '--examples', examples);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--out FILE is required/);
    expect(existsSync(out)).toBe(false);
  }, 120_000);
});
