import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SegmentationEngine } from '../../src/engine/engine';
import { loadNodeEngine, defaultModelDir } from '../../src/engine/adapters/ortNode';
import { nextClick } from './clicker';
import { listSamples } from './datasets';
import { evaluateSample, PROTOCOL_OPTIONS, stabilityScore, tightObjectBox } from './evaluate';

const GRABCUT = '../shared/eval/grabcut';

describe('tightObjectBox', () => {
  it('is the center-anchored form of the object pixels bounding box, ignore band excluded', () => {
    const labels = Int8Array.from([
      0, -1, -1, 0, 0,
      0, -1, 1, 1, 0,
      0, -1, 1, 0, 0,
    ]);
    const box = tightObjectBox({ width: 5, height: 3, labels });
    // Corners (2, 1) and (3, 2): SAM's [x0, y0, x1, y1] = [2, 1, 3, 2].
    expect(box).toEqual({ x: 2.5, y: 1.5, width: 1, height: 1 });
    expect([box.x - box.width / 2, box.y - box.height / 2, box.x + box.width / 2, box.y + box.height / 2]).toEqual([2, 1, 3, 2]);
  });
});

describe('stabilityScore', () => {
  it('is the IoU of the mask at logit +1 and at logit −1', () => {
    // > 1: two cells; > −1: four cells.
    expect(stabilityScore(Float32Array.from([5, 2, 0.5, -0.5, -3]))).toBe(2 / 4);
    expect(stabilityScore(Float32Array.from([-5, -6]))).toBe(1);
  });
});

const haveData = existsSync(GRABCUT) && existsSync(`${defaultModelDir()}/sam-encoder.onnx`);

describe.skipIf(!haveData)('evaluateSample with the real model on a GrabCut photo', () => {
  let engine: SegmentationEngine;
  beforeAll(async () => {
    engine = await loadNodeEngine({ threads: 1 });
  });
  afterAll(async () => engine?.release());

  it('follows the protocol: first click at the deepest object pixel, one IoU per click, a box IoU', async () => {
    const [sample] = (await listSamples('grabcut', GRABCUT)).filter((s) => s.name === '124080');
    const [image, truth] = await Promise.all([sample.loadImage(), sample.loadTruth()]);
    const run = await evaluateSample(engine, sample.name, image, truth, { ...PROTOCOL_OPTIONS, maxClicks: 4 });
    expect(run.clicks[0]).toEqual(nextClick(truth, new Uint8Array(truth.width * truth.height), []));
    expect(run.clicks[0].positive).toBe(true);
    expect(run.ious).toHaveLength(4);
    expect(run.encodings).toBe(1);
    // More clicks help on this photo, and a tight box finds the object.
    expect(run.ious[3]).toBeGreaterThan(run.ious[0]);
    expect(run.ious[3]).toBeGreaterThan(0.8);
    expect(run.boxIou).toBeGreaterThan(0.8);
  });

  it('zoom-in re-encodes a crop around the object and still maps masks back to the photo', async () => {
    const [sample] = (await listSamples('grabcut', GRABCUT)).filter((s) => s.name === '124080');
    const [image, truth] = await Promise.all([sample.loadImage(), sample.loadTruth()]);
    const zoom = { skipClicks: 1, expansion: 1.4, minCropSize: 100, recomputeIou: 0.5, minGain: 1 };
    const run = await evaluateSample(engine, sample.name, image, truth, { ...PROTOCOL_OPTIONS, maxClicks: 3, zoom, boxMode: 'off' });
    expect(run.encodings).toBeGreaterThanOrEqual(2);
    expect(run.ious[2]).toBeGreaterThan(0.8);
    expect(run.boxIou).toBeUndefined();
  });
});
