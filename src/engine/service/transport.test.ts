/**
 * The transport carrying the real engine: EngineService in a Node worker thread (the same transport
 * and service as the browser's Web Worker), called through the EngineApi from here.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngineThread } from '../../../test/support/engineThreads';
import { decodeImage } from '../adapters/nodeImage';
import { EmbeddingMissingError } from '../engine';
import type { BinaryMask, RgbaImage } from '../types';
import { ServiceGoneError } from './transport';

const sample = (name: string) => decodeImage(readFileSync(new URL(`../../../public/samples/${name}`, import.meta.url)));
const CUP = { x: 210, y: 170 };

describe('the engine over a worker thread', () => {
  let engine: Awaited<ReturnType<typeof startEngineThread>>;
  let coffee: RgbaImage;
  let chelsea: RgbaImage;
  beforeAll(async () => {
    [engine, coffee, chelsea] = await Promise.all([startEngineThread({ encoderPrecision: 'int8', decoderPrecision: 'int8' }), sample('coffee.png'), sample('chelsea.png')]);
  });
  afterAll(() => engine?.terminate());

  it('answers a predict with traced candidates, its early mask first, as an event', async () => {
    const { imageKey } = await engine.api.embed({ image: coffee, imageId: 'coffee' });
    const seen: string[] = [];
    let early: BinaryMask | undefined;
    const { candidates } = await engine.api.predict(
      { imageKey, prompt: { points: [{ ...CUP, positive: true }] }, options: { multimask: true, mirrorAverage: false } },
      { onEvent: (mask) => void (early = mask, seen.push('mask')) },
    );
    seen.push('result');
    expect(seen).toEqual(['mask', 'result']);
    expect(candidates.length).toBeGreaterThan(0);
    expect(candidates[0].polygons[0].outer.length).toBeGreaterThanOrEqual(3);
    expect(candidates[0].lowResLogits).toHaveLength(256 * 256);
    expect(early).toEqual(candidates[0].mask);
    expect(engine.description.encoderModel).toBe('sam-encoder-int8@node-test');
  });

  it('re-creates the engine’s own errors as their class, and keeps the name and message of the others', async () => {
    const missing = engine.api.predict({ imageKey: 'never-embedded', prompt: { points: [{ ...CUP, positive: true }] } });
    await expect(missing).rejects.toBeInstanceOf(EmbeddingMissingError);
    await expect(missing).rejects.toThrow(/never-embedded/);
    const record = { model: 'other-encoder.onnx@0', dims: [1, 256, 64, 64], data: new Float32Array(256 * 64 * 64) };
    await expect(engine.api.importEmbedding({ image: coffee, imageId: 'foreign', record })).rejects.toMatchObject({ name: 'Error', message: expect.stringMatching(/other-encoder/) });
  });

  it('answers a retrace ahead of a queued encoder run, and the rest in the order they came', async () => {
    const done: string[] = [];
    const embedded = engine.api.embed({ image: chelsea, imageId: 'chelsea-order' }).then(() => done.push('embed'));
    const held = engine.api.hasEmbedding({ imageKey: 'chelsea-order' }).then((has) => done.push(`has ${has}`));
    const mask = { width: 4, height: 4, data: new Uint8Array(16).fill(1) };
    const traced = engine.api.retrace({ masks: [mask], outline: { tolerance: 0 } }).then((r) => done.push(`retrace ${r.polygons.length}`));
    await Promise.all([embedded, held, traced]);
    expect(done).toEqual(['retrace 1', 'embed', 'has true']);
  });

  it('a call cancelled while it waits rejects at once with the reason and never runs', async () => {
    const first = engine.api.embed({ image: chelsea, imageId: 'chelsea-first' });
    const controller = new AbortController();
    const cancelled = engine.api.embed({ image: coffee, imageId: 'coffee-cancelled' }, { signal: controller.signal });
    controller.abort(new Error('the user moved on'));
    await expect(cancelled).rejects.toThrow('the user moved on');
    await first;
    expect(await engine.api.hasEmbedding({ imageKey: 'coffee-cancelled' })).toBe(false);
  });

  it('a crashed thread fails its open call and every later one with ServiceGoneError', async () => {
    const doomed = await startEngineThread({ encoderPrecision: 'int8', decoderPrecision: 'int8' });
    const open = doomed.api.embed({ image: coffee, imageId: 'coffee' });
    await doomed.thread.terminate();
    await expect(open).rejects.toBeInstanceOf(ServiceGoneError);
    await expect(doomed.gone).resolves.toBeInstanceOf(ServiceGoneError);
    await expect(doomed.api.hasEmbedding({ imageKey: 'coffee' })).rejects.toBeInstanceOf(ServiceGoneError);
  });
});
