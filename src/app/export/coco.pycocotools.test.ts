/**
 * The COCO file judged by the reader people train with: pycocotools (`COCO`, `annToMask`, the RLE
 * codec). Skipped, saying why, where python3 or pycocotools is missing (`pip install pycocotools`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toCoco } from '../../annotations/formats/coco';
import { decodeRunsString, maskToRle, maskToRuns } from '../../annotations/rle';
import { sessionDataset, type Dataset } from '../../annotations/formats/dataset';
import { sessionWithBoxes, testSession, withReviews } from './testSession';

const probe = spawnSync('python3', ['-c', 'import pycocotools, numpy'], { encoding: 'utf8' });
const available = probe.status === 0;
const reason = probe.error ? 'python3 is not installed' : 'pycocotools is not installed (pip install pycocotools)';
if (!available) console.warn(`coco.pycocotools.test.ts skipped: ${reason}`);

const JUDGE = `
import json, sys
import numpy as np
from pycocotools.coco import COCO
from pycocotools import mask as mu
coco = COCO(sys.argv[1])
out = []
for a in coco.loadAnns(coco.getAnnIds()):
    img = coco.imgs[a['image_id']]
    m = coco.annToMask(a)
    rle = coco.annToRLE(a)
    flat = [v for ring in a['segmentation'] for v in ring] if isinstance(a['segmentation'], list) else []
    out.append({'id': a['id'], 'area': a['area'], 'readerArea': int(m.sum()), 'bbox': a['bbox'], 'readerBbox': [float(v) for v in mu.toBbox(rle)],
                'xs': flat[0::2], 'ys': flat[1::2], 'width': img['width'], 'height': img['height'], 'shape': list(m.shape),
                'attributes': a.get('attributes')})
# The codec both ways: a mask encoded by pycocotools, and our string decoded by it.
ours = json.load(open(sys.argv[2]))
probe = np.asfortranarray(np.array(ours['mask'], dtype=np.uint8))
enc = mu.encode(probe)
decoded = mu.decode({'size': ours['size'], 'counts': ours['counts'].encode()})
print(json.dumps({'anns': out, 'theirCounts': enc['counts'].decode(), 'ourDecodedSum': int(decoded.sum()), 'ourDecodedEqual': bool((decoded == probe).all())}))
`;

describe.skipIf(!available)('COCO export read by pycocotools', () => {
  for (const rleForHoles of [false, true]) {
    it(`loads; area within 1 % of annToMask, bbox within 1 px, no vertex outside the image${rleForHoles ? ' (holes as RLE)' : ''}`, () => {
      const dataset = sessionDataset(testSession(), { includeHidden: true });
      const judged = judge(dataset, rleForHoles);
      expect(judged.anns).toHaveLength(5);
      expect(judged.anns.map((a: { attributes: { review_state: string } }) => a.attributes.review_state)).toEqual(Array(5).fill('accepted'));
    });
  }

  it('loads a file with proposals and their review state under attributes (rejected objects left out)', () => {
    const dataset = sessionDataset(withReviews(testSession()), { includeHidden: true, includeProposals: true });
    const judged = judge(dataset, false);
    expect(judged.anns.map((a: { attributes: Record<string, unknown> }) => [a.attributes.review_state, a.attributes.review_source ?? null])).toEqual([
      ['accepted', 'text-prompt'],
      ['unreviewed', 'find-similar'],
      ['accepted', null],
      ['accepted', null],
    ]);
  });
});

/** Writes the dataset's COCO file, has pycocotools read it, checks what every COCO file must hold, returns the reader's view. */
function judge(dataset: Dataset, rleForHoles: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'mw-coco-'));
  writeFileSync(join(dir, 'coco.json'), JSON.stringify(toCoco(dataset, { rleForHoles })));
  const ring = dataset.images[0].objects[0].geometry.mask;
  const rows = Array.from({ length: ring.height }, (_, y) => Array.from(ring.data.subarray(y * ring.width, (y + 1) * ring.width)));
  const rle = maskToRle(ring, true);
  writeFileSync(join(dir, 'probe.json'), JSON.stringify({ mask: rows, size: rle.size, counts: rle.counts }));
  writeFileSync(join(dir, 'judge.py'), JUDGE);
  const run = spawnSync('python3', [join(dir, 'judge.py'), join(dir, 'coco.json'), join(dir, 'probe.json')], { encoding: 'utf8' });
  expect(run.stderr.replace(/loading annotations[\s\S]*?index created!\n?/, '').trim()).toBe('');
  const judged = JSON.parse(run.stdout.trim().split('\n').pop()!);
  for (const a of judged.anns) {
    expect(a.shape).toEqual([a.height, a.width]);
    expect(Math.abs(a.readerArea - a.area) / a.area, `annotation ${a.id} area`).toBeLessThanOrEqual(0.01);
    a.bbox.forEach((v: number, i: number) => expect(Math.abs(v - a.readerBbox[i]), `annotation ${a.id} bbox`).toBeLessThanOrEqual(1));
    for (const x of a.xs) expect(x >= 0 && x <= a.width).toBe(true);
    for (const y of a.ys) expect(y >= 0 && y <= a.height).toBe(true);
  }
  // Our compressed RLE is theirs, both ways.
  expect(rle.counts).toBe(judged.theirCounts);
  expect(decodeRunsString(judged.theirCounts)).toEqual(maskToRuns(ring));
  expect(judged.ourDecodedEqual).toBe(true);
  return judged;
}

/**
 * A detection file: pycocotools loads it, every box's bbox and area are as written, and evaluating
 * the file's boxes (with scores) against itself as ground truth gives AP 1 — COCOeval's bbox path
 * reads them as the boxes they are. The masks' own bbox takes part too.
 */
const JUDGE_BOXES = `
import json, sys, io, contextlib
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval
with contextlib.redirect_stdout(io.StringIO()):
    gt = COCO(sys.argv[1])
    detections = [{'image_id': a['image_id'], 'category_id': a['category_id'], 'bbox': a['bbox'], 'score': 1.0} for a in gt.loadAnns(gt.getAnnIds())]
    dt = gt.loadRes(detections)
    evaluation = COCOeval(gt, dt, 'bbox')
    evaluation.evaluate(); evaluation.accumulate(); evaluation.summarize()
anns = gt.loadAnns(gt.getAnnIds())
print(json.dumps({'boxes': [[a['bbox'], a['area']] for a in anns if a['segmentation'] == []], 'count': len(anns), 'ap': float(evaluation.stats[0])}))
`;

describe.skipIf(!available)('COCO export with bbox-only objects read by pycocotools', () => {
  it('loads; the boxes keep bbox and area, COCOeval (bbox) of the file against itself gives AP 1', () => {
    const dataset = sessionDataset(sessionWithBoxes(), { includeHidden: true });
    const dir = mkdtempSync(join(tmpdir(), 'mw-coco-boxes-'));
    writeFileSync(join(dir, 'coco.json'), JSON.stringify(toCoco(dataset)));
    writeFileSync(join(dir, 'judge.py'), JUDGE_BOXES);
    const run = spawnSync('python3', [join(dir, 'judge.py'), join(dir, 'coco.json')], { encoding: 'utf8' });
    expect(run.stderr.trim()).toBe('');
    const judged = JSON.parse(run.stdout.trim().split('\n').pop()!);
    expect(judged.count).toBe(8);
    expect(judged.boxes).toEqual([
      [[4, 6, 20, 30], 600],
      [[80, 40, 16, 24], 384],
      [[10, 50, 25, 12], 300],
    ]);
    expect(judged.ap).toBeCloseTo(1, 6);
  });
});
