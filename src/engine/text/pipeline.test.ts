import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SegmentResponse } from '../../contract';
import type { SegmentationEngine } from '../engine';
import type { RgbaImage } from '../types';
import type { ObjectDetector } from './detector';
import { TextPipeline, toSegmentResponse } from './pipeline';
import { loadTextModels, releaseTextModels } from '../../../test/support/textModels';

let engine: SegmentationEngine;
let detector: ObjectDetector;
let chelsea: RgbaImage;
let coffee: RgbaImage;

beforeAll(async () => {
  ({ engine, detector, chelsea, coffee } = await loadTextModels());
});
afterAll(() => releaseTextModels({ engine, detector }));

function area(polygon: [number, number][]): number {
  let twice = 0;
  for (let i = 0; i < polygon.length; i++) {
    const [x0, y0] = polygon[i];
    const [x1, y1] = polygon[(i + 1) % polygon.length];
    twice += x0 * y1 - x1 * y0;
  }
  return Math.abs(twice) / 2;
}

describe('text segmentation on real photos', () => {
  it('finds the cat in chelsea.png, and nothing for a giraffe or a zebra-striped spaceship', async () => {
    const { results } = await new TextPipeline(engine, detector).run(chelsea, ['cat', 'giraffe', 'zebra-striped spaceship', 'kitten'], 'chelsea');
    const response = toSegmentResponse(results);
    expect(SegmentResponse.parse(response)).toEqual(response);
    expect(response.prompt_results.map((r) => r.echo.text)).toEqual(['cat', 'giraffe', 'zebra-striped spaceship', 'kitten']);

    const [cat, giraffe, spaceship, kitten] = response.prompt_results;
    expect(cat.predictions).toHaveLength(1);
    const [prediction] = cat.predictions;
    expect(prediction.label).toBe('cat');
    expect(prediction.confidence).toBeGreaterThan(0.3);
    expect(prediction.confidence).toBeLessThanOrEqual(1);
    // The cat fills most of the photo's left two thirds.
    const largest = Math.max(...prediction.masks.map(area));
    expect(largest).toBeGreaterThan(0.4 * chelsea.width * chelsea.height);
    for (const [x, y] of prediction.masks.flat()) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThanOrEqual(chelsea.width);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(y).toBeLessThanOrEqual(chelsea.height);
    }
    expect(giraffe.predictions).toEqual([]);
    expect(spaceship.predictions).toEqual([]);
    expect(kitten.predictions).toEqual(cat.predictions);
  });

  it('checks colour words on the mask pixels', async () => {
    const pipeline = new TextPipeline(engine, detector);
    const { results } = await pipeline.run(chelsea, ['orange cat', 'ginger cat', 'blue cat', 'white cat', 'largest cat'], 'chelsea');
    const counts = results.map((r) => r.instances.length);
    // "ginger" is not a colour word we know: it is listed as ignored and the cat is answered.
    expect(counts).toEqual([1, 1, 0, 0, 1]);
    expect(results[1].interpretation.ignored).toEqual(['ginger']);
  });

  it('runs no model at all when no prompt names a known object', async () => {
    const pipeline = new TextPipeline(engine, detector);
    const { results, timings, imageKey } = await pipeline.run(coffee, ['unicorn', 'the sky'], 'coffee-unknown');
    expect(results.every((r) => r.instances.length === 0 && r.interpretation.reason)).toBe(true);
    expect(imageKey).toBeUndefined();
    expect(timings.detectorMs).toBe(0);
    expect(engine.hasEmbedding('coffee-unknown')).toBe(false);
  });

  it('finds the cup in coffee.png through a synonym, with one encoder run for all prompts', async () => {
    const pipeline = new TextPipeline(engine, detector);
    const { results, timings } = await pipeline.run(coffee, ['mug', 'coffee cup', 'cups'], 'coffee');
    expect(timings.embeddingCacheHit).toBe(false);
    for (const r of results) {
      expect(r.instances.length, r.text).toBeGreaterThanOrEqual(1);
      expect(r.instances[0].label).toBe('cup');
      expect(r.instances[0].confidence).toBe(r.instances[0].detectorScore);
      expect(r.instances[0].detectorScore).not.toBe(r.instances[0].rawDetectorScore); // calibrated
    }
    const again = await pipeline.run(coffee, ['cup'], 'coffee');
    expect(again.timings.embeddingCacheHit).toBe(true);
  });
});
