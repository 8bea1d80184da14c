/**
 * The decoder on two worker threads (decoderPool.ts), on the real models and a real photo
 * (coffee.png: a cup on a saucer, a spoon), against the same decoder on the main thread.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedPath } from '../../../test/support/sharedData';
import type { SegmentationEngine } from '../engine';
import { segmentEverything, type EverythingEngine } from '../everything/segmentEverything';
import type { ConceptDetector } from '../text/detector';
import type { RgbaImage } from '../types';
import { decodeImage } from './nodeImage';
import { loadNodeEngine } from './ortNode';
import { loadNodeDetectors } from './textNode';

let mainThread: SegmentationEngine;
let pooled: SegmentationEngine;
let detectors: ConceptDetector[];
let image: RgbaImage;

beforeAll(async () => {
  [mainThread, pooled, detectors] = await Promise.all([loadNodeEngine({ threads: 1 }), loadNodeEngine({ threads: 1, decoderWorkers: 2 }), loadNodeDetectors({ threads: 1 })]);
  image = await decodeImage(readFileSync(sharedPath('samples/coffee.png')));
  await Promise.all([mainThread.embed(image, 'coffee'), pooled.embed(image, 'coffee')]);
}, 120_000);

afterAll(async () => {
  await Promise.all([mainThread?.release(), pooled?.release(), ...(detectors ?? []).map((d) => d.release())]);
});

/** The engine, recording the most decoder runs it had in progress at once. */
function inFlightRecorder(inner: SegmentationEngine) {
  const seen = { inFlight: 0, most: 0 };
  const engine: EverythingEngine = {
    getEmbedding: (key) => inner.getEmbedding(key),
    decodeConcurrency: inner.decodeConcurrency,
    decodeTokens: async (key, prompt) => {
      seen.most = Math.max(seen.most, ++seen.inFlight);
      try {
        return await inner.decodeTokens(key, prompt);
      } finally {
        seen.inFlight--;
      }
    },
  };
  return { engine, seen };
}

describe('the decoder on worker threads', () => {
  it('answers a box and a click as the main-thread decoder does; a prompt on one worker and the next on the other both find the photo', async () => {
    expect(pooled.decodeConcurrency).toBe(2);
    expect(mainThread.decodeConcurrency).toBe(1);
    const prompts = [{ box: { x: 200, y: 150, width: 200, height: 160 } }, { points: [{ x: 120, y: 90, label: 1 as const }] }, { box: { x: 100, y: 80, width: 90, height: 60 } }];
    const together = await Promise.all(prompts.map((p) => pooled.decodeTokens('coffee', p)));
    for (const [k, prompt] of prompts.entries()) {
      const alone = await mainThread.decodeTokens('coffee', prompt);
      expect(Array.from(together[k].outputs.iou)).toEqual(Array.from(alone.outputs.iou));
      expect(together[k].outputs.logits).toEqual(alone.outputs.logits);
    }
  }, 120_000);

  it('a photo whose inputs a worker let go of (after two more photos) is sent again and answered as before', async () => {
    const others = await Promise.all(['chelsea.png', 'astronaut.png'].map(async (name) => decodeImage(readFileSync(sharedPath(`samples/${name}`)))));
    const prompt = { box: { x: 150, y: 120, width: 120, height: 100 } };
    const first = await pooled.decodeTokens('coffee', prompt);
    // Each photo feeds four large inputs (its embedding and three precomputed projections); a worker keeps eight.
    for (const [k, other] of others.entries()) {
      await pooled.embed(other, `other-${k}`);
      await Promise.all([pooled.decodeTokens(`other-${k}`, prompt), pooled.decodeTokens(`other-${k}`, { box: { ...prompt.box, x: 151 } })]);
    }
    const again = await pooled.decodeTokens('coffee', { box: { ...prompt.box, x: 150.5 } });
    const alone = await mainThread.decodeTokens('coffee', { box: { ...prompt.box, x: 150.5 } });
    expect(again.outputs.logits).toEqual(alone.outputs.logits);
    expect(first.outputs.iou.length).toBe(again.outputs.iou.length);
  }, 180_000);

  it('segment everything asks the pooled decoder two boxes at once and keeps exactly what the main-thread decoder keeps', async () => {
    // Weak boxes too, so that the photo gives several box prompts.
    const options = { rule: 'objects' as const, image, detectors, gridSides: [], minDetectorScore: 0.02, minSmallBoxScore: 0.02 };
    const onPool = inFlightRecorder(pooled);
    const onMain = inFlightRecorder(mainThread);
    const [fromPool, fromMain] = [await segmentEverything(onPool.engine, 'coffee', options), await segmentEverything(onMain.engine, 'coffee', options)];
    expect(fromMain.decoderRuns).toBeGreaterThan(2);
    expect(onPool.seen.most).toBe(2);
    expect(onMain.seen.most).toBe(1);
    const summary = (r: typeof fromMain) => r.proposals.map((p) => ({ id: p.id, area: p.area, box: p.box, confidence: p.confidence, label: p.label }));
    expect(fromPool.decoderRuns).toBe(fromMain.decoderRuns);
    expect(summary(fromPool)).toEqual(summary(fromMain));
    for (const [k, p] of fromPool.proposals.entries()) expect(p.mask.data).toEqual(fromMain.proposals[k].mask.data);
  }, 180_000);
});
