/**
 * The bench's decoding rules on the real provisioned models and a real photo (coffee.png: a cup of
 * espresso on a saucer with a spoon, 600×400), plugged into the engine through its hook.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeImage } from '../../../src/engine/adapters/nodeImage';
import { createNodeRuntime, defaultModelDir } from '../../../src/engine/adapters/ortNode';
import { SegmentationEngine } from '../../../src/engine/engine';
import { maskIoU } from '../../../src/engine/polygons';
import type { BinaryMask, PointPrompt, RgbaImage } from '../../../src/engine/types';
import { sharedPath } from '../../../test/support/sharedData';
import { cascadeRefine } from './cascade';
import { alignMaskPrompt } from './clickAlignedMaskPrompt';
import { clickConsistency } from './consistency';
import { edgeAwareUpsampling } from './edgeAwareUpsample';
import { decodeRuleFor, NO_RULES } from './index';
import { PROGRESSIVE_MERGE_FROM_CLICK, progressiveMerge } from './progressiveMerge';
import { SHIFT_VIEW, shiftAverage } from './shift';

const CUP = { x: 250, y: 230 }; // on the cup's red body
const SPOON = { x: 370, y: 285 }; // on the spoon's bowl
/** One look at the photo: these rules are measured without the engine's mirror image. */
const ONE_LOOK = { mirrorAverage: false, multimask: false } as const;

let image: RgbaImage;
let engine: SegmentationEngine;
let imageKey: string;
let encoderRuns = 0;

const at = (mask: BinaryMask, p: { x: number; y: number }) => mask.data[p.y * mask.width + p.x];

beforeAll(async () => {
  image = await decodeImage(readFileSync(sharedPath('samples/coffee.png')));
  const dir = defaultModelDir();
  const runtime = createNodeRuntime();
  engine = await SegmentationEngine.create(
    {
      backend: runtime.backend,
      async createSession(name, model) {
        const session = await runtime.createSession(name, model);
        if (name !== 'encoder') return session;
        const run: typeof session.run = (feeds, fetches) => {
          encoderRuns++;
          return session.run(feeds, fetches);
        };
        return { inputNames: session.inputNames, outputNames: session.outputNames, run, release: () => session.release() };
      },
    },
    { encoder: `${dir}/sam-encoder.onnx`, decoder: `${dir}/sam-decoder-click.onnx`, decoderPrecompute: `${dir}/sam-decoder-precompute.onnx` },
  );
  ({ imageKey } = await engine.embed(image, 'coffee'));
});

describe('the bench’s decoding rules on coffee.png', () => {
  it('local click consistency never answers a click sequence with a mask that respects fewer clicks than SAM’s own answer', async () => {
    const sequence: PointPrompt[] = [CUP, { ...SPOON, positive: false }, { x: 300, y: 200 }, { x: 100, y: 100, positive: false }, { x: 240, y: 300 }];
    const respected = (mask: BinaryMask, points: PointPrompt[]) => points.filter((p) => at(mask, p) === ((p.positive ?? true) ? 1 : 0)).length;
    let previous: Float32Array | undefined;
    for (let n = 1; n <= sequence.length; n++) {
      const points = sequence.slice(0, n);
      const [off] = (await engine.predict(imageKey, { points, maskInput: previous }, ONE_LOOK)).candidates;
      const [ours] = (await engine.predict(imageKey, { points, maskInput: previous }, { ...ONE_LOOK, rule: clickConsistency('local') })).candidates;
      expect(respected(ours.mask, points)).toBeGreaterThanOrEqual(respected(off.mask, points));
      previous = off.lowResLogits;
    }
  });

  it('with the click-aligned mask prompt, a fed-back mask that contradicts the clicks does not overrule them', async () => {
    // A previous mask that confidently says "nothing here" and one that holds the spoon the user excludes.
    const nothing = new Float32Array(256 * 256).fill(-20);
    const [found] = (await engine.predict(imageKey, { points: [CUP], maskInput: nothing }, { ...ONE_LOOK, rule: alignMaskPrompt })).candidates;
    expect(at(found.mask, CUP)).toBe(1);
    const [spoonAndCup] = (await engine.predict(imageKey, { points: [CUP] }, ONE_LOOK)).candidates;
    const points = [CUP, { ...SPOON, positive: false }];
    const [aligned] = (await engine.predict(imageKey, { points, maskInput: spoonAndCup.lowResLogits }, { ...ONE_LOOK, rule: alignMaskPrompt })).candidates;
    expect(at(aligned.mask, SPOON)).toBe(0);
    expect(at(aligned.mask, CUP)).toBe(1);
  });

  it('with progressive merge, a late click changes only its own region and keeps the rest of the previous mask', async () => {
    const [spoonAndCup] = (await engine.predict(imageKey, { points: [CUP] }, ONE_LOOK)).candidates;
    // The previous mask: cup and spoon, plus a part far from every click that earlier clicks are taken to have added.
    const previous = spoonAndCup.lowResLogits.slice();
    const far = { x: 40, y: 40 };
    for (let r = 9; r <= 25; r++) for (let c = 9; c <= 25; c++) previous[r * 256 + c] = 10;
    const positives = Array.from({ length: PROGRESSIVE_MERGE_FROM_CLICK - 1 }, (_, i) => ({ x: CUP.x + (i % 3) * 4, y: CUP.y + Math.floor(i / 3) * 4 }));
    const points = [...positives, { ...SPOON, positive: false }];
    const [merged] = (await engine.predict(imageKey, { points, maskInput: previous }, { ...ONE_LOOK, rule: progressiveMerge })).candidates;
    expect(at(merged.mask, SPOON)).toBe(0);
    expect(at(merged.mask, CUP)).toBe(1);
    expect(at(merged.mask, far)).toBe(1);
    // Before the merge's first click the rule changes nothing.
    const early = points.slice(-2);
    const [plain] = (await engine.predict(imageKey, { points: early, maskInput: previous }, ONE_LOOK)).candidates;
    const [earlyMerged] = (await engine.predict(imageKey, { points: early, maskInput: previous }, { ...ONE_LOOK, rule: progressiveMerge })).candidates;
    expect(maskIoU(earlyMerged.mask, plain.mask)).toBe(1);
  });

  it('with shift averaging, also decodes the frame moved by half a patch; with the mirror image too, three views', async () => {
    const { imageKey: key } = await engine.embed(image, 'coffee-shift');
    await expect(engine.predict(key, { points: [CUP] }, { ...ONE_LOOK, rule: shiftAverage })).rejects.toThrow(/"shifted" needs its own embedding/);
    const runsBefore = encoderRuns;
    await engine.embed(image, 'coffee-shift', { views: [SHIFT_VIEW], mirrored: true });
    expect(encoderRuns).toBe(runsBefore + 2);
    const [plain] = (await engine.predict(key, { points: [CUP] }, ONE_LOOK)).candidates;
    const [shifted] = (await engine.predict(key, { points: [CUP] }, { ...ONE_LOOK, rule: shiftAverage })).candidates;
    const [both] = (await engine.predict(key, { points: [CUP] }, { ...ONE_LOOK, mirrorAverage: true, rule: shiftAverage })).candidates;
    for (const answer of [shifted, both]) {
      expect(at(answer.mask, CUP)).toBe(1);
      expect(maskIoU(answer.mask, plain.mask)).toBeGreaterThan(0.8);
      expect(answer.lowResLogits).not.toEqual(plain.lowResLogits);
    }
    expect(both.lowResLogits).not.toEqual(shifted.lowResLogits);
  });

  it('with cascaded refinement, decodes once more and still answers the click', async () => {
    const [plain] = (await engine.predict(imageKey, { points: [CUP] }, ONE_LOOK)).candidates;
    const [refined] = (await engine.predict(imageKey, { points: [CUP] }, { ...ONE_LOOK, rule: cascadeRefine })).candidates;
    expect(at(refined.mask, CUP)).toBe(1);
    expect(maskIoU(refined.mask, plain.mask)).toBeGreaterThan(0.5);
    expect(refined.lowResLogits).not.toEqual(plain.lowResLogits);
  });

  it('edge-aware upsampling takes the photo from its caller (the engine keeps none), and says so when it has none', async () => {
    const rule = edgeAwareUpsampling((key) => (key === imageKey ? image : undefined));
    const [guided] = (await engine.predict(imageKey, { points: [CUP] }, { ...ONE_LOOK, rule })).candidates;
    const [plain] = (await engine.predict(imageKey, { points: [CUP] }, ONE_LOOK)).candidates;
    expect(at(guided.mask, CUP)).toBe(1);
    expect(maskIoU(guided.mask, plain.mask)).toBeGreaterThan(0.9);
    expect(guided.lowResLogits).toEqual(plain.lowResLogits);
    await expect(engine.predict(imageKey, { points: [CUP] }, { ...ONE_LOOK, rule: edgeAwareUpsampling(() => undefined) })).rejects.toThrow(/photo of "coffee"/);
  });

  it('with every rule off, the eval’s rule is the engine’s own answer; combined, each stage runs', async () => {
    const [plain] = (await engine.predict(imageKey, { points: [CUP] }, ONE_LOOK)).candidates;
    const [none] = (await engine.predict(imageKey, { points: [CUP] }, { ...ONE_LOOK, rule: decodeRuleFor(NO_RULES, () => image) })).candidates;
    expect(none.lowResLogits).toEqual(plain.lowResLogits);
    const combined = decodeRuleFor({ ...NO_RULES, cascadeRefine: true, upsampling: 'edge-aware' }, () => image);
    const [cascaded] = (await engine.predict(imageKey, { points: [CUP] }, { ...ONE_LOOK, rule: cascadeRefine })).candidates;
    const [both] = (await engine.predict(imageKey, { points: [CUP] }, { ...ONE_LOOK, rule: combined })).candidates;
    expect(both.lowResLogits).toEqual(cascaded.lowResLogits);
    expect(maskIoU(both.mask, cascaded.mask)).toBeGreaterThan(0.9);
  });
});
