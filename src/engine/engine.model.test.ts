/**
 * The engine on the real provisioned models and a real photo (coffee.png: a cup of espresso on a saucer
 * with a spoon, 600×400). Model runs are few and share one engine: the encoder takes about a second.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { PvsResponse } from '../contract';
import { decodeImage } from './adapters/nodeImage';
import { createNodeRuntime, defaultModelDir } from './adapters/ortNode';
import type { DecodeRule, PhotoView } from './decodeRule';
import { EmbeddingMissingError, SegmentationEngine } from './engine';
import { maskIoU, maskToPolygons, rasterizePolygons } from './polygons';
import { mirrorImage } from './mirror';
import { runPvs } from './pvs';
import type { Runtime } from './runtime';
import type { BinaryMask, PointPrompt, RgbaImage } from './types';
import { sharedPath } from '../../test/support/sharedData';

const CUP = { x: 250, y: 230 }; // on the cup's red body
const SPOON = { x: 370, y: 285 }; // on the spoon's bowl

let image: RgbaImage;
let engine: SegmentationEngine;
let encoderRuns = 0;
let precomputeRuns = 0;
let decoderRuns = 0;

/** The real Node runtime, counting encoder and decoder runs to observe the caches. */
function countingRuntime(inner: Runtime): Runtime {
  return {
    backend: inner.backend,
    async createSession(name, model) {
      const session = await inner.createSession(name, model);
      if (name !== 'encoder' && name !== 'decoder-precompute' && name !== 'decoder') return session;
      return {
        inputNames: session.inputNames,
        outputNames: session.outputNames,
        run: (feeds, fetches) => {
          if (name === 'encoder') encoderRuns++;
          else if (name === 'decoder') decoderRuns++;
          else precomputeRuns++;
          return session.run(feeds, fetches);
        },
        release: () => session.release(),
      };
    },
  };
}

/** One look at the photo (the engine's rule also decodes the mirror image, which most tests here do not embed). */
const ONE_LOOK = { mirrorAverage: false } as const;

const at = (mask: BinaryMask, p: { x: number; y: number }) => mask.data[p.y * mask.width + p.x];

beforeAll(async () => {
  image = await decodeImage(readFileSync(sharedPath('samples/coffee.png')));
  const dir = defaultModelDir();
  engine = await SegmentationEngine.create(countingRuntime(createNodeRuntime()), {
    encoder: `${dir}/sam-encoder.onnx`,
    // The split decoder, as every runtime loads it by default (scripts/onnxDecoderSplit.mjs).
    decoder: `${dir}/sam-decoder-click.onnx`,
    decoderPrecompute: `${dir}/sam-decoder-precompute.onnx`,
  }, { embeddingCacheSize: 2 });
});

describe('SegmentationEngine on coffee.png', () => {
  it('embeds once per image: the second embed of the same pixels is a cache hit that skips the encoder', async () => {
    expect(engine.backend.name).toBe('onnxruntime-node-cpu');
    expect(engine.multimaskAvailable).toBe(true);
    const first = await engine.embed(image);
    expect(first.cacheHit).toBe(false);
    expect(first.imageKey).toMatch(/^px64:600x400:/);
    expect(encoderRuns).toBe(1);
    const copy = { width: image.width, height: image.height, data: new Uint8Array(image.data) };
    const second = await engine.embed(copy);
    expect(second).toMatchObject({ imageKey: first.imageKey, cacheHit: true });
    expect(encoderRuns).toBe(1);
    expect(engine.getEmbedding(first.imageKey)?.embedding.dims).toEqual([1, 256, 64, 64]);
  });

  it("runs the split decoder's image-only part once per image, beside the embedding, not once per click", async () => {
    const { imageKey } = await engine.embed(image);
    const before = precomputeRuns;
    for (const point of [CUP, SPOON, CUP]) await engine.predict(imageKey, { points: [point] }, ONE_LOOK);
    expect(precomputeRuns).toBe(before);
    // An embedding made elsewhere (a server, IndexedDB) gets its own, once.
    const { embedding } = engine.getEmbedding(imageKey)!;
    engine.adoptEmbedding(image, 'adopted', { data: embedding.data.slice(), dims: embedding.dims });
    await engine.predict('adopted', { points: [CUP] }, ONE_LOOK);
    await engine.predict('adopted', { points: [SPOON] }, ONE_LOOK);
    expect(precomputeRuns).toBe(before + 1);
    engine.forget('adopted');
  });

  it('offers several distinct candidates for a click on the cup, best first, each plausible', async () => {
    const { imageKey } = await engine.embed(image);
    const { candidates } = await engine.predict(imageKey, { points: [CUP] }, ONE_LOOK);
    expect(candidates.length).toBeGreaterThan(1);
    // One positive click is ambiguous: SAM's answer is a multimask token (1..3), never token 0.
    expect(candidates[0].token).toBeGreaterThanOrEqual(1);
    expect(new Set(candidates.map((c) => c.token)).size).toBe(candidates.length);
    for (const c of candidates) {
      expect(at(c.mask, CUP)).toBe(1);
      expect(c.area / (600 * 400)).toBeGreaterThan(0.05);
      expect(c.area / (600 * 400)).toBeLessThan(0.8);
      expect(c.score).toBeGreaterThanOrEqual(0);
      expect(c.score).toBeLessThanOrEqual(1);
      expect(c.lowResLogits).toHaveLength(256 * 256);
    }
    for (let i = 0; i < candidates.length; i++) {
      for (let j = i + 1; j < candidates.length; j++) expect(maskIoU(candidates[i].mask, candidates[j].mask)).toBeLessThan(0.9);
    }
    const single = await engine.predict(imageKey, { points: [CUP] }, { ...ONE_LOOK, multimask: false });
    expect(single.candidates).toHaveLength(1);
    expect(maskIoU(single.candidates[0].mask, candidates[0].mask)).toBe(1);

    // Real masks from the model survive the polygon round trip at the default tolerance.
    for (const c of candidates) {
      const back = rasterizePolygons(maskToPolygons(c.mask), 600, 400);
      expect(maskIoU(back, c.mask)).toBeGreaterThanOrEqual(0.98);
    }
  });

  it('shrinks the mask when a negative point is added, and refines with mask feedback', async () => {
    const { imageKey } = await engine.embed(image);
    const [spoonAndCup] = (await engine.predict(imageKey, { points: [CUP] }, { ...ONE_LOOK, multimask: false })).candidates;
    expect(at(spoonAndCup.mask, SPOON)).toBe(1); // the best guess for one click includes the spoon
    const refined = await engine.predict(
      imageKey,
      { points: [CUP, { ...SPOON, positive: false }], maskInput: spoonAndCup.lowResLogits },
      { ...ONE_LOOK, multimask: false },
    );
    const [withoutSpoon] = refined.candidates;
    expect(at(withoutSpoon.mask, SPOON)).toBe(0);
    expect(at(withoutSpoon.mask, CUP)).toBe(1);
    expect(withoutSpoon.area).toBeLessThan(spoonAndCup.area);
  });

  it("runs a decoding rule's stages (decodeRule.ts) in order, and refuses a view the photo was not embedded with", async () => {
    const { imageKey } = await engine.embed(image, 'coffee-rule');
    const [plain] = (await engine.predict(imageKey, { points: [CUP] }, { ...ONE_LOOK, multimask: false })).candidates;
    const stages: string[] = [];
    const everything = new Float32Array(256 * 256).fill(5);
    const rule: DecodeRule = {
      preparePrompt(prompt) {
        stages.push('prepare');
        return { ...prompt, points: [...(prompt.points ?? []), { ...SPOON, positive: false }] };
      },
      async redecode(decoded, step) {
        stages.push('redecode');
        expect(step.asked.points).toHaveLength(1);
        expect(step.prompt.points).toHaveLength(2);
        return decoded;
      },
      async correct(chosen) {
        stages.push('correct');
        return { ...chosen, logits: everything };
      },
      toMask(logits, frame, key) {
        stages.push(`mask ${key}`);
        return { width: frame.width, height: frame.height, data: new Uint8Array(frame.width * frame.height).fill(logits[0] > 0 ? 1 : 0) };
      },
    };
    const [ruled] = (await engine.predict(imageKey, { points: [CUP] }, { ...ONE_LOOK, multimask: false, rule })).candidates;
    expect(stages).toEqual(['prepare', 'redecode', 'correct', `mask ${imageKey}`]);
    expect(ruled.lowResLogits).toBe(everything);
    expect(ruled.area).toBe(600 * 400);
    expect(plain.area).toBeLessThan(600 * 400);
    const unseen: PhotoView = { name: 'unseen', storeKey: () => 'unseen', prompt: (p) => p, logitsBack: (l) => l };
    await expect(engine.predict(imageKey, { points: [CUP] }, { ...ONE_LOOK, rule: { views: [unseen] } })).rejects.toThrow(/"unseen" needs its own embedding/);
  });

  it('with mirror averaging, decodes the photo and its mirror image (embedded on request) and averages the answers', async () => {
    const { imageKey } = await engine.embed(image, 'coffee-mirror');
    await expect(engine.predict(imageKey, { points: [CUP] }, { mirrorAverage: true })).rejects.toThrow(/mirrored: true/);
    // Mirror averaging is the engine's rule: left out, it is asked for.
    await expect(engine.predict(imageKey, { points: [CUP] })).rejects.toThrow(/mirrored: true/);
    const runsBefore = encoderRuns;
    // Two requests at once (two tabs, two API calls) share the mirror image's one encoder run.
    const [embedded, alongside] = await Promise.all([
      engine.embed(image, 'coffee-mirror', { mirrored: true }),
      engine.embed(image, 'coffee-mirror', { mirrored: true }),
    ]);
    expect(encoderRuns).toBe(runsBefore + 1); // the photo itself was cached: only its mirror image ran
    expect(embedded.cacheHit).toBe(false);
    expect(alongside.imageKey).toBe(imageKey);
    const [plain] = (await engine.predict(imageKey, { points: [CUP] }, { ...ONE_LOOK, multimask: false })).candidates;
    const [averaged] = (await engine.predict(imageKey, { points: [CUP] }, { multimask: false, mirrorAverage: true })).candidates;
    expect(at(averaged.mask, CUP)).toBe(1);
    expect(maskIoU(averaged.mask, plain.mask)).toBeGreaterThan(0.8);
    expect(averaged.lowResLogits).not.toEqual(plain.lowResLogits);
    expect(await engine.embed(image, 'coffee-mirror', { mirrored: true })).toMatchObject({ cacheHit: true });
  });

  it('takes a mirror image embedding made elsewhere (the studio\'s mirror worker): the same averaged answer as one made here', async () => {
    await expect(engine.adoptMirrorEmbedding('not-embedded', { data: new Float32Array(4), dims: [1, 1, 2, 2] })).rejects.toThrow(EmbeddingMissingError);
    const elsewhere = await engine.embed(mirrorImage(image), 'coffee-mirrored-photo');
    const { imageKey: adopted } = await engine.embed(image, 'coffee-mirror-adopted');
    await engine.adoptMirrorEmbedding(adopted, engine.getEmbedding(elsewhere.imageKey)!.embedding);
    const { imageKey: madeHere } = await engine.embed(image, 'coffee-mirror-here', { mirrored: true });
    const prompt = { points: [CUP, { x: 150, y: 330, positive: false }] };
    const [here] = (await engine.predict(madeHere, prompt, { multimask: false, mirrorAverage: true })).candidates;
    const [there] = (await engine.predict(adopted, prompt, { multimask: false, mirrorAverage: true })).candidates;
    expect(there.lowResLogits).toEqual(here.lowResLogits);
  });

  it("decodes again only the views a second pass adds: the mirror pass after a click reuses the click's own decode", async () => {
    const { imageKey } = await engine.embed(image, 'coffee-pass', { mirrored: true });
    const { imageKey: fresh } = await engine.embed(image, 'coffee-pass-fresh', { mirrored: true });
    const [quick] = (await engine.predict(imageKey, { points: [CUP] }, { ...ONE_LOOK, multimask: false })).candidates;
    const prompt = { points: [CUP, SPOON], maskInput: quick.lowResLogits };
    await engine.predict(imageKey, prompt, ONE_LOOK);
    let before = decoderRuns;
    const [passed] = (await engine.predict(imageKey, prompt, { mirrorAverage: true })).candidates;
    expect(decoderRuns).toBe(before + 1); // the mirror image's view only
    before = decoderRuns;
    const [whole] = (await engine.predict(fresh, prompt, { mirrorAverage: true })).candidates;
    expect(decoderRuns).toBe(before + 2);
    expect(passed.lowResLogits).toEqual(whole.lowResLogits);
    // Another fed-back mask is another prompt: decoded, not taken from the last decode.
    const changed = quick.lowResLogits.slice();
    changed[0] += 1;
    before = decoderRuns;
    await engine.predict(imageKey, { ...prompt, maskInput: changed }, ONE_LOOK);
    expect(decoderRuns).toBe(before + 1);
  });

  it('segments inside a center-anchored box', async () => {
    const { imageKey } = await engine.embed(image);
    const box = { x: 290, y: 160, width: 240, height: 300 }; // the cup with its handle
    const [best] = (await engine.predict(imageKey, { box }, { ...ONE_LOOK, multimask: false })).candidates;
    let inside = 0;
    for (let y = 0; y < 400; y++) {
      for (let x = 0; x < 600; x++) {
        if (best.mask.data[y * 600 + x] && Math.abs(x - box.x) <= box.width / 2 && Math.abs(y - box.y) <= box.height / 2) inside++;
      }
    }
    expect(inside / best.area).toBeGreaterThan(0.95);
    expect(best.area).toBeGreaterThan(0.2 * box.width * box.height);
  });

  it('runPvs returns the contract’s PvsResponse, keyed by the given imageId', async () => {
    const before = encoderRuns;
    const { response, timings } = await runPvs(engine, image, { points: [SPOON], imageId: 'coffee-1' });
    expect(PvsResponse.parse(response)).toEqual(response);
    expect(response.imageId).toBe('coffee-1');
    expect(response.prompts).toHaveLength(1);
    expect(response.prompts[0].predictions.length).toBeGreaterThan(0);
    expect(timings.cacheHit).toBe(false);
    expect(encoderRuns).toBe(before + 2); // the photo and its mirror image: the engine's rule
    const again = await runPvs(engine, image, { points: [SPOON], imageId: 'coffee-1' }, { multimask: false });
    expect(again.timings.cacheHit).toBe(true);
    expect(again.response.prompts[0].predictions).toHaveLength(1);
    expect(encoderRuns).toBe(before + 2);
    // One look, asked for, on a photo not seen before: its encoder run only.
    const oneLook = await runPvs(engine, mirrorImage(image), { points: [SPOON], imageId: 'coffee-2' }, ONE_LOOK);
    expect(oneLook.timings.cacheHit).toBe(false);
    expect(encoderRuns).toBe(before + 3);
  });

  it('re-embeds when an imageId is reused for a different picture of the same size', async () => {
    const before = encoderRuns;
    const flipped = new Uint8Array(image.data.length);
    for (let i = 0; i < image.data.length; i += 4) flipped.set(image.data.subarray(image.data.length - 4 - i, image.data.length - i), i);
    const other = { width: 600, height: 400, data: flipped }; // rotated by 180°
    const result = await engine.embed(other, 'coffee-1');
    expect(result).toMatchObject({ imageKey: 'coffee-1', cacheHit: false });
    expect(encoderRuns).toBe(before + 1);
  });

  it('decodes an adopted embedding (computed elsewhere) exactly like its own, without an encoder run', async () => {
    const { imageKey } = await engine.embed(image, 'coffee-own');
    const own = engine.getEmbedding(imageKey)!.embedding;
    const runsBefore = encoderRuns;
    engine.adoptEmbedding(image, 'coffee-adopted', { data: new Float32Array(own.data), dims: own.dims });
    const adopted = await engine.predict('coffee-adopted', { points: [CUP] }, ONE_LOOK);
    const reference = await engine.predict(imageKey, { points: [CUP] }, ONE_LOOK);
    expect(encoderRuns).toBe(runsBefore);
    expect(maskIoU(adopted.candidates[0].mask, reference.candidates[0].mask)).toBe(1);
    // The adopted entry answers embed() for the same picture as a cache hit.
    expect(await engine.embed(image, 'coffee-adopted')).toMatchObject({ cacheHit: true });
    expect(encoderRuns).toBe(runsBefore);
  });

  it('warms the decoder up without an encoder run and leaves no embedding behind', async () => {
    const runsBefore = encoderRuns;
    await engine.warmUpDecoder(3);
    expect(encoderRuns).toBe(runsBefore);
    expect(engine.hasEmbedding('__maskwright-decoder-warm-up__')).toBe(false);
  });

  it('refuses to predict on an image it has not embedded', async () => {
    await expect(engine.predict('never-seen', { points: [CUP] })).rejects.toBeInstanceOf(EmbeddingMissingError);
  });
});

describe('concurrent embeds', () => {
  it('share one encoder run for the same image', async () => {
    engine.forget();
    const before = encoderRuns;
    const results = await Promise.all([engine.embed(image, 'same'), engine.embed(image, 'same'), engine.embed(image, 'same')]);
    expect(encoderRuns).toBe(before + 1);
    expect(results.filter((r) => r.cacheHit)).toHaveLength(2);
  });
});
