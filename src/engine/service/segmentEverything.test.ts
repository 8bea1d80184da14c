/**
 * Segment everything as a caller gets it from the EngineApi: over the worker-thread transport (the
 * browser's path) with its events and cancellation, and in-process, where the decoder runs can be
 * counted. Real models, a real photo; small grids keep the decoder runs few.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngineThread } from '../../../test/support/engineThreads';
import { decodeImage } from '../adapters/nodeImage';
import { loadNodeEngine } from '../adapters/ortNode';
import { loadNodeDetector } from '../adapters/textNode';
import { COCO_CLASSES } from '../text/cocoClasses';
import type { SegmentationEngine } from '../engine';
import type { RgbaImage } from '../types';
import { TextService } from '../worker/textService';
import type { EverythingEvent } from './api';
import { EngineService } from './engineService';

const sample = (name: string) => decodeImage(readFileSync(new URL(`../../../public/samples/${name}`, import.meta.url)));

let chelsea: RgbaImage;
beforeAll(async () => {
  chelsea = await sample('chelsea.png');
});

describe('segmentEverything over a worker thread', () => {
  let engine: Awaited<ReturnType<typeof startEngineThread>>;
  beforeAll(async () => {
    engine = await startEngineThread({ encoderPrecision: 'int8', decoderPrecision: 'int8' });
  }, 120_000);
  afterAll(() => engine?.terminate());

  it('sends progress after every decoder run and each proposal as it is found; the answer holds what the events left', async () => {
    const events: EverythingEvent[] = [];
    const answer = await engine.api.segmentEverything(
      { image: chelsea, imageId: 'chelsea', options: { rule: 'grid', gridSides: [3] }, outline: { tolerance: 1 } },
      { onEvent: (e) => events.push(e) },
    );
    expect(answer.rule).toBe('grid');
    expect(answer.decoderRuns).toBe(9);
    expect(events.map((e) => e.decoded)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(events.every((e) => e.planned === 9 && e.stage === 'grid')).toBe(true);
    expect(answer.proposals.length).toBeGreaterThan(0);
    // What the events added, less what they removed, is the answer (best first there).
    const live = new Map<number, EverythingEvent['added'][number]>();
    for (const e of events) {
      for (const id of e.removed) live.delete(id);
      for (const p of e.added) live.set(p.id, p);
    }
    expect([...live.keys()].sort()).toEqual(answer.proposals.map((p) => p.id).sort());
    for (const p of answer.proposals) {
      expect(p.source).toBe('grid');
      expect(p.polygons[0].outer.length).toBeGreaterThanOrEqual(3);
      expect(p.mask.width).toBe(chelsea.width);
      expect(live.get(p.id)!.mask).toEqual(p.mask);
    }
    const confidences = answer.proposals.map((p) => p.confidence);
    expect(confidences).toEqual([...confidences].sort((a, b) => b - a));
  }, 120_000);

  it('cancelled through the transport: rejects with the reason, and the engine serves the next call', async () => {
    const controller = new AbortController();
    let last = 0;
    const run = engine.api.segmentEverything(
      { image: chelsea, imageId: 'chelsea', options: { rule: 'grid', gridSides: [32] } },
      {
        signal: controller.signal,
        onEvent: (e) => {
          last = e.decoded;
          if (e.decoded === 3) controller.abort(new Error('the user pressed stop'));
        },
      },
    );
    await expect(run).rejects.toThrow('the user pressed stop');
    expect(last).toBe(3);
    // In turn behind the cancelled call (that no decoder run starts after the signal is counted in-process, below).
    expect(await engine.api.hasEmbedding({ imageKey: 'chelsea' })).toBe(true);
  }, 120_000);
});

describe('segmentEverything in-process', () => {
  let engine: SegmentationEngine;
  let service: EngineService;
  let runs = 0;
  beforeAll(async () => {
    engine = await loadNodeEngine({ threads: 1, encoderPrecision: 'int8', decoderPrecision: 'int8' });
    // Counts the decoder runs segment-everything asks the real engine for.
    const decodeTokens = engine.decodeTokens.bind(engine);
    engine.decodeTokens = (key, prompt) => (runs++, decodeTokens(key, prompt));
    const detector = { name: 'centernet', vocabulary: COCO_CLASSES, load: () => loadNodeDetector({ threads: 1 }) };
    service = new EngineService(engine, new TextService(engine, [detector]), { backend: engine.backend, encoderModel: 'sam-encoder-int8@node-test' });
  }, 120_000);
  afterAll(() => engine?.release());

  it("the shipped rule prompts with the text service's detectors: the cat's box is a labelled proposal", async () => {
    runs = 0;
    const events: EverythingEvent[] = [];
    const answer = await service.segmentEverything({ image: chelsea, options: { gridSides: [2] } }, { onEvent: (e) => events.push(e) });
    expect(answer.rule).toBe('objects');
    expect(answer.proposals.some((p) => p.source === 'detector' && p.label === 'cat')).toBe(true);
    expect(events.some((e) => e.stage === 'boxes' && e.added.some((p) => p.label === 'cat'))).toBe(true);
    expect(answer.decoderRuns).toBe(runs);
  }, 120_000);

  it("the bulk rule prompts with the text service's detectors too, on the photo and its tiles", async () => {
    const answer = await service.segmentEverything({ image: chelsea, options: { rule: 'thorough', gridSides: [2] } });
    expect(answer.rule).toBe('thorough');
    expect(answer.proposals.some((p) => p.source === 'detector' && p.label === 'cat')).toBe(true);
  }, 240_000);

  it('cancel: no decoder run starts after the signal', async () => {
    runs = 0;
    const controller = new AbortController();
    const run = service.segmentEverything(
      { image: chelsea, options: { rule: 'grid', gridSides: [8] } },
      { signal: controller.signal, onEvent: (e) => e.decoded === 2 && controller.abort() },
    );
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(runs).toBe(2);
  }, 120_000);
});
