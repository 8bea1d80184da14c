/**
 * The studio's engine session on a real engine: EngineService in Node worker threads (as the
 * browser's Web Workers serve it), the real status store. A crashed worker and a model switch
 * recover without a reload; dispose ends the workers.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEngineThread } from '../../../test/support/engineThreads';
import { decodeImage } from '../../engine/adapters/nodeImage';
import type { DescribeRegionsRequest, DescribeRegionsResponse, EmbeddingRecord, EngineApi } from '../../engine/service/api';
import { boxMask } from '../../engine/learn/descriptors';
import type { RgbaImage } from '../../engine/types';
import { useEngineStatus } from '../state/engineStatus';
import { EngineSession, type EngineSessionPorts } from './engineSession';
import type { ModelVariants } from './modelVariants';

const CUP = { points: [{ x: 210, y: 170, positive: true }] };
const OPTIONS = { tolerance: 0.7, multimask: false, mirrorAverage: false };

let coffee: RgbaImage;
const photos = new Map<string, RgbaImage>();
beforeAll(async () => {
  coffee = await decodeImage(readFileSync(new URL('../../../public/samples/coffee.png', import.meta.url)));
  photos.set('coffee', coffee);
  for (const name of ['chelsea', 'astronaut']) photos.set(name, await decodeImage(readFileSync(new URL(`../../../public/samples/${name}.png`, import.meta.url))));
});

/**
 * A session on engine threads, with what it started and stored in view; `clickCacheSize`: photos the
 * click worker's engine holds; `detectors`: every thread loads the text detectors. `described`: the
 * timings of every describeRegions answer, by the thread that gave it (in launch order; 0: the click worker).
 */
function sessionOnThreads({ clickCacheSize, detectors }: { clickCacheSize?: number; detectors?: boolean } = {}) {
  const launched: Awaited<ReturnType<typeof startEngineThread>>[] = [];
  const described: { thread: number; timings: DescribeRegionsResponse['timings'] }[] = [];
  let launches = 0;
  const stored = new Map<string, EmbeddingRecord>();
  let models: ModelVariants = { encoder: 'int8', decoder: 'int8' };
  const ports: EngineSessionPorts = {
    launch: async (options) => {
      const index = launches++;
      const thread = await startEngineThread({ encoderPrecision: options.encoderPrecision, decoderPrecision: options.decoderPrecision, embeddingCacheSize: options.embeddingCacheSize ?? clickCacheSize, detectors });
      launched.push(thread);
      const api: EngineApi = Object.create(thread.api, {
        describeRegions: {
          value: async (request: DescribeRegionsRequest) => {
            const answer = await thread.api.describeRegions(request);
            described.push({ thread: index, timings: answer.timings });
            return answer;
          },
        },
      });
      return { ...thread, api };
    },
    models: () => models,
    status: () => useEngineStatus.getState(),
    pixels: (id) => photos.get(id),
    stored: { load: async (key, model) => (stored.get(key)?.model === model ? stored.get(key) : undefined), save: async (key, record) => void stored.set(key, record) },
    serverEmbedding: async () => {
      throw new Error('Server start is off here');
    },
    serverStart: () => false,
  };
  return { session: new EngineSession(ports), launched, stored, described, switchModels: (next: ModelVariants) => (models = next) };
}

describe('EngineSession', () => {
  let session: EngineSession | undefined;
  afterEach(() => session?.dispose());

  it('recovers from a crashed worker on the next request, without a reload', async () => {
    const s = sessionOnThreads();
    session = s.session;
    const first = await session.predict('coffee', CUP, OPTIONS);
    expect(first[0].polygons.length).toBeGreaterThan(0);
    expect(session.isEmbedded('coffee')).toBe(true);
    expect(useEngineStatus.getState().phase).toBe('ready');

    await s.launched[0].thread.terminate();
    await s.launched[0].gone;
    expect(useEngineStatus.getState()).toMatchObject({ phase: 'error', error: expect.stringMatching(/starts again on the next request/) });
    expect(session.isEmbedded('coffee')).toBe(false);

    // A fresh engine: the photo's embedding comes back from the store (the crashed worker took its cache).
    const again = await session.predict('coffee', CUP, OPTIONS);
    expect(s.launched).toHaveLength(2);
    expect(useEngineStatus.getState().phase).toBe('ready');
    expect(again[0].mask).toEqual(first[0].mask);
  });

  it('a model switch starts an engine for the new variants with empty caches and ends the old one', async () => {
    const s = sessionOnThreads();
    session = s.session;
    await session.ensureEmbedding('coffee');
    expect(session.isEmbedded('coffee')).toBe(true);
    s.switchModels({ encoder: 'fp32', decoder: 'fp32' });
    expect(session.isEmbedded('coffee')).toBe(true); // nothing restarts until the engine is next asked for
    const answer = await session.predict('coffee', CUP, OPTIONS);
    expect(answer.length).toBeGreaterThan(0);
    expect(s.launched.map((w) => w.description.encoderModel)).toEqual(['sam-encoder-int8@node-test', 'sam-encoder-fp32@node-test']);
    await expect(s.launched[0].gone).resolves.toBeDefined();
    expect(useEngineStatus.getState().models).toEqual({ encoder: 'fp32', decoder: 'fp32' });
    // Stored under each encoder's identity: the fp32 engine ran its own encoder, it did not take the int8 embedding.
    expect(s.stored.get('coffee')?.model).toBe('sam-encoder-fp32@node-test');
  });

  it('makes an embedding the worker let go again, so a click on that photo still gets its mask', async () => {
    const s = sessionOnThreads({ clickCacheSize: 1 });
    session = s.session;
    const first = await session.predict('coffee', CUP, OPTIONS);
    await session.ensureEmbedding('chelsea'); // the worker holds one photo: coffee goes
    expect((await session.cachedEmbeddings()).map((c) => c.imageKey)).toEqual(['chelsea']);
    const storedBefore = useEngineStatus.getState().storedEmbeddingsUsed;
    const again = await session.predict('coffee', CUP, OPTIONS);
    expect(again[0].mask).toEqual(first[0].mask);
    expect(useEngineStatus.getState().storedEmbeddingsUsed).toBe(storedBefore + 1); // from storage, not a second encoder run
  });

  it('embeds the photo on screen before the photos waiting in the background', async () => {
    const s = sessionOnThreads();
    session = s.session;
    const finished: string[] = [];
    session.embedInBackground(null, ['coffee', 'chelsea', 'astronaut']);
    // The user looks at the last photo while the first is being embedded.
    session.embedInBackground('astronaut', ['coffee', 'chelsea', 'astronaut']);
    expect(session.isWaitingToEmbed('chelsea')).toBe(true);
    await Promise.all(['coffee', 'chelsea', 'astronaut'].map((id) => session!.ensureEmbedding(id, 'background').then(() => finished.push(id))));
    expect(finished).toEqual(['coffee', 'astronaut', 'chelsea']);
  });

  it('runs the mirror pass with the mirror image embedded by its own one-thread worker, which the engine then holds; dispose ends both workers', async () => {
    const s = sessionOnThreads();
    session = s.session;
    const quick = await session.predict('coffee', CUP, OPTIONS);
    const checked = await session.mirrorPass('coffee', CUP, OPTIONS);
    expect(checked[0].polygons.length).toBeGreaterThan(0);
    expect(checked[0].mask).not.toEqual(quick[0].mask);
    expect(s.launched).toHaveLength(2);
    expect(s.stored.has('mirror:coffee')).toBe(true);
    expect(await session.cachedEmbeddings()).toEqual([{ imageKey: 'coffee', views: ['photo', 'mirror'] }]);
    session.dispose();
    await Promise.all(s.launched.map((w) => w.gone));
    expect(session.isEmbedded('coffee')).toBe(false);
    expect(await session.cachedEmbeddings()).toEqual([]);
  });

  it('segments everything on the embedding it made (stored for later visits), with events; a signal already stopped asks the engine nothing', async () => {
    const s = sessionOnThreads();
    session = s.session;
    const decoded: number[] = [];
    const grid = { options: { rule: 'grid' as const, gridSides: [2] }, outline: { tolerance: 1 } };
    const answer = await session.segmentEverything('coffee', grid, { onEvent: (e) => decoded.push(e.decoded) });
    expect(session.isEmbedded('coffee')).toBe(true);
    expect(s.stored.has('coffee')).toBe(true);
    expect(decoded).toEqual([1, 2, 3, 4]);
    expect(answer.decoderRuns).toBe(4);
    expect(answer.proposals.every((p) => p.mask.width === coffee.width && p.polygons.length > 0)).toBe(true);
    const stopped = new AbortController();
    stopped.abort(new Error('stopped before it began'));
    await expect(session.segmentEverything('coffee', grid, { signal: stopped.signal, onEvent: (e) => decoded.push(e.decoded) })).rejects.toThrow('stopped before it began');
    expect(decoded).toHaveLength(4);
  });

  it("starts no background detector run before the photo's first answer has landed: that click keeps every core", async () => {
    const chelsea = photos.get('chelsea')!;
    const cat = boxMask({ x0: 0.15 * chelsea.width, y0: 0.05 * chelsea.height, x1: 0.95 * chelsea.width, y1: chelsea.height }, chelsea.width, chelsea.height);
    const s = sessionOnThreads({ detectors: true });
    session = s.session;
    session.prepareDescriptors('chelsea');
    await session.describeRegions('chelsea', [cat]);
    expect(s.launched).toHaveLength(1);
    expect(s.described).toEqual([{ thread: 0, timings: expect.objectContaining({ detectorsPrepared: false }) }]);
  }, 240_000);

  it("makes a shown photo's detector runs in the background worker after its first answer, so the first description of it runs no detector in the click worker, and describes it as the click worker would", async () => {
    const chelsea = photos.get('chelsea')!;
    const cat = boxMask({ x0: 0.15 * chelsea.width, y0: 0.05 * chelsea.height, x1: 0.95 * chelsea.width, y1: chelsea.height }, chelsea.width, chelsea.height);
    const s = sessionOnThreads({ detectors: true });
    session = s.session;
    session.prepareDescriptors('chelsea');
    await session.predict('chelsea', { points: [{ x: chelsea.width / 2, y: chelsea.height / 2, positive: true }] }, OPTIONS);
    const prepared = await session.describeRegions('chelsea', [cat]);
    expect(s.launched).toHaveLength(2);
    expect(s.described).toEqual([{ thread: 0, timings: expect.objectContaining({ detectorsPrepared: true, photoReused: false }) }]);
    session.dispose();

    const unprepared = sessionOnThreads({ detectors: true });
    session = unprepared.session;
    const itself = await session.describeRegions('chelsea', [cat]);
    expect(unprepared.launched).toHaveLength(1);
    expect(unprepared.described).toEqual([{ thread: 0, timings: expect.objectContaining({ detectorsPrepared: false, photoReused: false }) }]);
    expect(prepared).toEqual(itself);
  }, 240_000);
});
