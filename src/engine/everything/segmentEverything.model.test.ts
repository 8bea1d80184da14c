/**
 * Segment everything on the real models and a real photo (chelsea.png: a cat, 451×300). Small grids
 * keep the decoder runs few; the rules' figures on COCO come from the eval (bench/evalCoco/everything.ts).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeImage } from '../adapters/nodeImage';
import { loadNodeEngine } from '../adapters/ortNode';
import { loadNodeDetector, loadNodeFaceDetector } from '../adapters/textNode';
import type { SegmentationEngine } from '../engine';
import { boxIoU, type ConceptDetector, type Detection } from '../text/detector';
import type { RgbaImage } from '../types';
import { bestToken, tokenLogits } from '../candidates';
import type { VisualPrompt } from '../types';
import { ExploredCells } from './lowRes';
import { cutByTileEdge, tileRects } from './tiles';
import { maskArea } from '../upsample';
import { EVERYTHING_SETTINGS, segmentEverything, type EverythingEngine, type EverythingProgress } from './segmentEverything';
import { sharedPath } from '../../../test/support/sharedData';

let engine: SegmentationEngine;
let detector: ConceptDetector;
let image: RgbaImage;
let imageKey: string;

beforeAll(async () => {
  engine = await loadNodeEngine({ threads: 1 });
  detector = await loadNodeDetector({ threads: 1 });
  image = await decodeImage(readFileSync(sharedPath('samples/chelsea.png')));
  imageKey = (await engine.embed(image)).imageKey;
}, 120_000);

afterAll(async () => {
  await engine?.release();
  await detector?.release();
});

/** The engine, counting the decoder runs segment-everything asks for. */
function counting(inner: SegmentationEngine): EverythingEngine & { runs: number } {
  const counter = {
    runs: 0,
    getEmbedding: (key: string) => inner.getEmbedding(key),
    decodeTokens: (key: string, prompt: Parameters<SegmentationEngine['decodeTokens']>[1]) => {
      counter.runs++;
      return inner.decodeTokens(key, prompt);
    },
  };
  return counter;
}

/** The engine, recording every prompt and the decoder's answer to it. */
function recording(inner: SegmentationEngine) {
  const answers: { prompt: VisualPrompt; answer: Awaited<ReturnType<SegmentationEngine['decodeTokens']>> }[] = [];
  const engine: EverythingEngine = {
    getEmbedding: (key) => inner.getEmbedding(key),
    decodeTokens: async (key, prompt) => {
      const answer = await inner.decodeTokens(key, prompt);
      answers.push({ prompt, answer });
      return answer;
    },
    embedScratch: (picture, key) => inner.embedScratch(picture, key),
    forget: (key) => inner.forget(key),
  };
  return { engine, answers };
}

/** The engine, recording which embeddings the decoder ran on and which tiles were encoded. */
function tilingRecorder(inner: SegmentationEngine) {
  const embedded: string[] = [];
  const decodedOn = new Set<string>();
  const engine: EverythingEngine = {
    getEmbedding: (key) => inner.getEmbedding(key),
    decodeTokens: (key, prompt) => {
      decodedOn.add(key);
      return inner.decodeTokens(key, prompt);
    },
    embedScratch: async (picture, key) => {
      embedded.push(key);
      return inner.embedScratch(picture, key);
    },
    forget: (key) => inner.forget(key),
  };
  return { engine, embedded, decodedOn };
}

describe('segmentEverything', () => {
  it("object-aware rule: the detector's cat box first, as a labelled proposal, then grid proposals that do not repeat it", async () => {
    const progress: EverythingProgress[] = [];
    const result = await segmentEverything(engine, imageKey, { rule: 'objects', image, detectors: [detector], gridSides: [3], onProgress: (p) => progress.push(p) });
    const cat = result.proposals.find((p) => p.source === 'detector' && p.label === 'cat');
    expect(cat, JSON.stringify(result.proposals.map((p) => [p.source, p.label, p.area]))).toBeDefined();
    // The cat covers much of the photo.
    expect(cat!.area).toBeGreaterThan(0.2 * image.width * image.height);
    for (const p of result.proposals) {
      expect(p.confidence).toBeGreaterThanOrEqual(0);
      expect(p.confidence).toBeLessThanOrEqual(1);
      expect(p.mask.width).toBe(image.width);
    }
    for (const [i, a] of result.proposals.entries()) {
      for (const b of result.proposals.slice(i + 1)) expect(boxIoU(a.box, b.box)).toBeLessThanOrEqual(0.7);
    }
    // Best first.
    expect(result.proposals.map((p) => p.confidence)).toEqual([...result.proposals.map((p) => p.confidence)].sort((a, b) => b - a));
    // Progress after every decoder run, the proposals so far with it; grid points on the cat are skipped.
    const decodes = progress.filter((p) => p.stage !== 'detect').map((p) => p.decoded);
    expect(decodes).toEqual(decodes.map((_, k) => k + 1));
    expect(result.decoderRuns).toBe(decodes.length);
    expect(progress.at(-1)!.planned).toBe(result.decoderRuns);
    expect(progress.some((p) => p.stage === 'boxes' && p.proposals.some((q) => q.label === 'cat'))).toBe(true);
    expect(result.decoderRuns).toBeLessThan(9 + progress.filter((p) => p.stage === 'boxes').length);
  }, 120_000);

  it('object-aware rule: no grid point is decoded inside a confident mask an earlier prompt returned', async () => {
    const settings = EVERYTHING_SETTINGS.objects;
    const skipping = recording(engine);
    const result = await segmentEverything(skipping.engine, imageKey, { rule: 'objects', image, detectors: [detector], gridSides: [6] });
    const every = recording(engine);
    await segmentEverything(every.engine, imageKey, { rule: 'objects', image, detectors: [detector], gridSides: [6], skipExplored: false });
    expect(result.decoderRuns).toBe(skipping.answers.length);
    // Skipping spares decoder runs: confident masks answer for grid points that no kept mask covers.
    expect(skipping.answers.length).toBeLessThan(every.answers.length);
    const explored = new ExploredCells(skipping.answers[0].answer.frame);
    for (const { prompt, answer } of skipping.answers) {
      const grid = prompt.points !== undefined;
      if (grid) expect(explored.has(prompt.points![0].x, prompt.points![0].y)).toBe(false);
      // What the rule marks: every grid token over the grid's bar; the box's chosen token over the box bar.
      const tokens = grid ? [1, 2, 3] : [bestToken(answer.outputs, answer.frame, { ambiguous: false, unstableFallback: true })];
      for (const token of tokens) {
        if (answer.outputs.iou[token] >= (grid ? settings.predIouThreshold : settings.boxPredIouThreshold)) explored.add(tokenLogits(answer.outputs, token));
      }
    }
  }, 120_000);

  it('object-aware rule: only the detectors named in boxDetectors run', async () => {
    const face = await loadNodeFaceDetector({ threads: 1 });
    try {
      let faceRuns = 0;
      const counted: ConceptDetector = {
        name: face.name,
        vocabulary: face.vocabulary,
        inputSize: face.inputSize,
        detect: (...args) => {
          faceRuns++;
          return face.detect(...args);
        },
        release: () => face.release(),
      };
      const result = await segmentEverything(engine, imageKey, { rule: 'objects', image, detectors: [detector, counted], gridSides: [2] });
      expect(EVERYTHING_SETTINGS.objects.boxDetectors).not.toContain(face.name);
      expect(faceRuns).toBe(0);
      expect(result.proposals.some((p) => p.label === 'cat')).toBe(true);
      await segmentEverything(engine, imageKey, { rule: 'objects', image, detectors: [detector, counted], gridSides: [2], boxDetectors: [face.name] });
      expect(faceRuns).toBe(1);
    } finally {
      await face.release();
    }
  }, 120_000);

  it("grid rule: SAM's filters hold for every proposal, one decoder run per grid point", async () => {
    const result = await segmentEverything(engine, imageKey, { rule: 'grid', gridSides: [3] });
    expect(result.decoderRuns).toBe(9);
    expect(result.proposals.length).toBeGreaterThan(0);
    for (const p of result.proposals) {
      expect(p.source).toBe('grid');
      expect(p.predictedIoU).toBeGreaterThanOrEqual(0.88);
      expect(p.stability).toBeGreaterThanOrEqual(0.95);
    }
  }, 120_000);

  it('cancel: no decoder run starts after the signal, and the promise rejects', async () => {
    const counted = counting(engine);
    const controller = new AbortController();
    const run = segmentEverything(counted, imageKey, {
      rule: 'grid',
      gridSides: [4],
      signal: controller.signal,
      onProgress: (p) => {
        if (p.decoded === 2) controller.abort();
      },
    });
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(counted.runs).toBe(2);

    const already = counting(engine);
    await expect(segmentEverything(already, imageKey, { signal: AbortSignal.abort(), image, detectors: [detector] })).rejects.toMatchObject({ name: 'AbortError' });
    expect(already.runs).toBe(0);
  }, 120_000);

  it('thorough rule: the whole photo first, then each tile re-encoded and forgotten; every proposal on the photo, none cut by a tile edge', async () => {
    const embedded: string[] = [];
    const forgotten: string[] = [];
    const tiling: EverythingEngine = {
      getEmbedding: (key) => engine.getEmbedding(key),
      decodeTokens: (key, prompt) => engine.decodeTokens(key, prompt),
      embedScratch: async (picture, key) => {
        embedded.push(key);
        return engine.embedScratch(picture, key);
      },
      forget: (key) => {
        forgotten.push(key!);
        engine.forget(key);
      },
    };
    const settings = { image, detectors: [detector], gridSides: [2], tileGridSides: [2], encodeTiles: true };
    const progress: EverythingProgress[] = [];
    const thorough = await segmentEverything(tiling, imageKey, { rule: 'thorough', ...settings, onProgress: (p) => progress.push(p) });
    // The bulk rule asks the detectors for weaker boxes too: the same on the object-aware rule's photo pass.
    const { minDetectorScore, maxBoxes } = EVERYTHING_SETTINGS.thorough;
    const objects = await segmentEverything(engine, imageKey, { rule: 'objects', ...settings, minDetectorScore, maxBoxes });
    // A tile whose grid points the photo's masks (and its large boxes, asked on the photo) answer is not encoded.
    expect(thorough.tilesEncoded).toBeGreaterThan(0);
    expect(embedded).toHaveLength(thorough.tilesEncoded);
    expect(forgotten).toEqual(embedded);
    expect(engine.hasEmbedding(imageKey)).toBe(true);
    for (const key of embedded) expect(engine.hasEmbedding(key)).toBe(false);
    // The whole photo's pass is the object-aware rule's: its proposals come first and stay.
    expect(thorough.proposals.filter((p) => p.id < objects.proposals.length).map((p) => p.area).sort()).toEqual(objects.proposals.map((p) => p.area).sort());
    expect(progress.some((p) => p.stage === 'tiles')).toBe(true);
    const tiles = tileRects(image.width, image.height, 2, EVERYTHING_SETTINGS.thorough.tileOverlap);
    for (const p of thorough.proposals) {
      expect(p.mask.width).toBe(image.width);
      expect(p.mask.height).toBe(image.height);
      expect(maskArea(p.mask)).toBe(p.area);
    }
    for (const [i, a] of thorough.proposals.entries()) {
      for (const b of thorough.proposals.slice(i + 1)) expect(boxIoU(a.box, b.box)).toBeLessThanOrEqual(0.7);
    }
    // Ranked by the decoder's confidence times the root of the strongest detector score any look gave the object.
    expect(thorough.proposals.map((p) => p.rankScore)).toEqual(thorough.proposals.map((p) => p.rankScore).sort((x, y) => y - x));
    for (const p of thorough.proposals.filter((q) => q.source === 'detector')) {
      expect(p.strongestDetectorScore).toBeGreaterThanOrEqual(p.detectorScore!);
      expect(p.rankScore).toBeCloseTo(p.confidence * Math.sqrt(p.strongestDetectorScore!), 10);
    }
    // A tile's proposal lies inside its tile and reaches none of its edges inside the photo.
    const fromTiles = thorough.proposals.filter((p) => p.id >= objects.proposals.length);
    for (const p of fromTiles) {
      const home = tiles.filter((t) => p.box.x0 >= t.x0 - 4 && p.box.x1 <= t.x1 + 4 && p.box.y0 >= t.y0 - 4 && p.box.y1 <= t.y1 + 4);
      expect(home.length, JSON.stringify(p.box)).toBeGreaterThan(0);
      expect(home.some((t) => !cutByTileEdge({ x: 0, y: 0, mask: p.mask }, t, image.width, image.height))).toBe(true);
    }
  }, 300_000);

  it("thorough rule: a tile's boxes the photo's encoder sees large are decoded on the photo's embedding, and a tile left with none is not encoded", async () => {
    const { engine: tiling, embedded, decodedOn } = tilingRecorder(engine);
    const settings = { image, detectors: [detector], gridSides: [2], tileGridSides: [], tilesNeedSmallEvidence: false, encodeTiles: true };
    const { minDetectorScore, maxBoxes } = EVERYTHING_SETTINGS.thorough;
    const photoOnly = await segmentEverything(engine, imageKey, { rule: 'objects', ...settings, minDetectorScore, maxBoxes });
    // No box is small (0 patches): every tile box the photo's pass did not answer goes to the photo.
    const allLarge = await segmentEverything(tiling, imageKey, { rule: 'thorough', ...settings, tileBoxMaxPatches: 0 });
    expect(allLarge.tilesEncoded).toBe(0);
    expect(embedded).toEqual([]);
    expect([...decodedOn]).toEqual([imageKey]);
    // The tiles' detector runs did ask something the photo's pass had not.
    expect(allLarge.decoderRuns).toBeGreaterThan(photoOnly.decoderRuns);
    // Every box small: the same boxes are decoded on their tiles, each of those tiles encoded.
    decodedOn.clear();
    const allSmall = await segmentEverything(tiling, imageKey, { rule: 'thorough', ...settings, tileBoxMaxPatches: Infinity });
    expect(allSmall.tilesEncoded).toBeGreaterThan(0);
    expect([...decodedOn].filter((key) => key !== imageKey)).toHaveLength(allSmall.tilesEncoded);
  }, 300_000);

  it('thorough rule: a photo whose own pass saw nothing small is not tiled, not even by the detectors', async () => {
    let detectorRuns = 0;
    const countingDetector: ConceptDetector = Object.assign(Object.create(detector) as ConceptDetector, {
      detect: (picture: RgbaImage, options?: Parameters<ConceptDetector['detect']>[1]) => {
        detectorRuns++;
        return detector.detect(picture, options);
      },
    });
    const settings = { image, detectors: [countingDetector], gridSides: [2], tileGridSides: [] };
    // Nothing counts as small under 0 patches: the photo's pass is all there is.
    const nothingSmall = await segmentEverything(engine, imageKey, { rule: 'thorough', ...settings, tileBoxMaxPatches: 0 });
    expect(detectorRuns).toBe(1);
    expect(nothingSmall.tilesEncoded).toBe(0);
    // Everything small: the tiles are looked at (each by the detector).
    detectorRuns = 0;
    await segmentEverything(engine, imageKey, { rule: 'thorough', ...settings, tileBoxMaxPatches: Infinity });
    expect(detectorRuns).toBe(5);
  }, 300_000);

  it('thorough rule on an engine that holds one photo: its tiles leave the photo cached, so a click after it runs no encoder and finds the photo', async () => {
    const holdsOne = await loadNodeEngine({ threads: 1, embeddingCacheSize: 1 });
    try {
      const key = (await holdsOne.embed(image)).imageKey;
      const found = await segmentEverything(holdsOne, key, { rule: 'thorough', image, detectors: [detector], gridSides: [2], tileGridSides: [2], encodeTiles: true });
      expect(found.tilesEncoded).toBeGreaterThan(0);
      expect(holdsOne.cachedViews().map((v) => v.imageKey)).toEqual([key]);
      const click = await holdsOne.predict(key, { points: [{ x: 200, y: 150 }] }, { mirrorAverage: false });
      expect(click.candidates.length).toBeGreaterThan(0);
      expect((await holdsOne.embed(image)).cacheHit).toBe(true);
    } finally {
      await holdsOne.release();
    }
  }, 300_000);

  it('the interactive rule encodes no tile, whatever the bulk rule skips', () => {
    expect(EVERYTHING_SETTINGS.objects.tilesPerSide).toBe(0);
    expect(EVERYTHING_SETTINGS.objects.tileEncodeMinScore).toBe(0);
    expect(EVERYTHING_SETTINGS.objects.smallEvidencePerTile).toBe(false);
    expect(EVERYTHING_SETTINGS.objects.minSmallBoxScore).toBe(EVERYTHING_SETTINGS.objects.minDetectorScore);
  });

  it("thorough rule: a tile whose small new boxes are all weaker than tileEncodeMinScore is not encoded; its boxes are decoded on the photo's embedding", async () => {
    const { engine: tiling, embedded, decodedOn } = tilingRecorder(engine);
    const settings = { image, detectors: [detector], gridSides: [2], tileGridSides: [], tilesNeedSmallEvidence: false, tileBoxMaxPatches: Infinity, encodeTiles: true };
    const anyBox = await segmentEverything(tiling, imageKey, { rule: 'thorough', ...settings, tileEncodeMinScore: 0 });
    expect(anyBox.tilesEncoded).toBeGreaterThan(0);
    embedded.length = 0;
    decodedOn.clear();
    // No box scores above 1: no tile is worth an encoder run, yet its boxes are still asked, on the photo.
    const none = await segmentEverything(tiling, imageKey, { rule: 'thorough', ...settings, tileEncodeMinScore: 1.01 });
    expect(none.tilesEncoded).toBe(0);
    expect(embedded).toEqual([]);
    expect([...decodedOn]).toEqual([imageKey]);
    expect(none.work.decodes['tile boxes on photo']!.runs).toBeGreaterThan(0);
    expect(none.work.detectorPasses).toBe(5);
    // The bulk rule as shipped encodes no tile at all, even where any box would be worth it and a tile grid is
    // left to ask: its tiles are searched by the detectors and their boxes asked on the photo.
    expect(EVERYTHING_SETTINGS.thorough.encodeTiles).toBe(false);
    embedded.length = 0;
    decodedOn.clear();
    const shipped = await segmentEverything(tiling, imageKey, { rule: 'thorough', ...settings, encodeTiles: false, tileEncodeMinScore: 0, tileGridSides: [2] });
    expect(shipped.tilesEncoded).toBe(0);
    expect(embedded).toEqual([]);
    expect([...decodedOn]).toEqual([imageKey]);
    expect(shipped.work.decodes['tile boxes on photo']!.runs).toBeGreaterThan(0);
  }, 300_000);

  it("a box the photo's encoder sees small needs only minSmallBoxScore; a larger one still needs minDetectorScore", async () => {
    const settings = { image, detectors: [detector], gridSides: [], minDetectorScore: 0.1 };
    const boxRuns = (r: Awaited<ReturnType<typeof segmentEverything>>) => r.work.decodes['photo boxes']?.runs ?? 0;
    const oneFloor = await segmentEverything(engine, imageKey, { rule: 'objects', ...settings, minSmallBoxScore: 0.1 });
    // Every box counts as small (any size is under Infinity patches): the weaker ones are asked too.
    const everyBoxSmall = await segmentEverything(engine, imageKey, { rule: 'objects', ...settings, minSmallBoxScore: 0.001, tileBoxMaxPatches: Infinity });
    // No box counts as small (under 0 patches): the weaker floor asks nothing more.
    const noBoxSmall = await segmentEverything(engine, imageKey, { rule: 'objects', ...settings, minSmallBoxScore: 0.001, tileBoxMaxPatches: 0 });
    expect(boxRuns(everyBoxSmall)).toBeGreaterThan(boxRuns(oneFloor));
    expect(everyBoxSmall.proposals.some((p) => p.detectorScore !== undefined && p.detectorScore < 0.1)).toBe(true);
    expect(boxRuns(noBoxSmall)).toBe(boxRuns(oneFloor));
    expect(noBoxSmall.proposals.every((p) => p.detectorScore === undefined || p.detectorScore >= 0.1)).toBe(true);
  }, 300_000);

  it('with smallBoxCentreClick a box the photo\'s encoder sees small is asked with a click at its centre, a larger one with the box alone', async () => {
    const settings = { image, detectors: [detector], gridSides: [], smallBoxCentreClick: true };
    const boxPrompts = async (tileBoxMaxPatches: number) => {
      const { engine: recorder, answers } = recording(engine);
      await segmentEverything(recorder, imageKey, { rule: 'objects', ...settings, tileBoxMaxPatches });
      return answers.map((a) => a.prompt).filter((p) => p.box);
    };
    // Every box counts as small: each carries one positive click at its centre.
    const small = await boxPrompts(Infinity);
    expect(small.length).toBeGreaterThan(0);
    for (const p of small) expect(p.points).toEqual([{ x: p.box!.x, y: p.box!.y, positive: true }]);
    // No box counts as small: the boxes alone, as without the setting.
    const large = await boxPrompts(0);
    expect(large.length).toBe(small.length);
    for (const p of large) expect(p.points).toBeUndefined();
  }, 300_000);

  it('thorough rule with clusterGridSides: grid clicks inside each tile the detectors looked at, on the photo\'s embedding, skipping what is covered', async () => {
    const clicks = async (clusterGridSides: readonly number[]) => {
      const { engine: recorder, answers } = recording(engine);
      const found = await segmentEverything(recorder, imageKey, { rule: 'thorough', image, detectors: [detector], tileBoxMaxPatches: Infinity, clusterGridSides });
      const firstClick = answers.findIndex((a) => !a.prompt.box);
      const boxesBefore = new Set(answers.slice(0, firstClick).map((a) => JSON.stringify(a.prompt.box)));
      return { found, boxesBefore, clicks: answers.filter((a) => !a.prompt.box).map((a) => a.prompt.points!) };
    };
    const tiles = tileRects(image.width, image.height, 2, EVERYTHING_SETTINGS.thorough.tileOverlap);
    const withGrid = await clicks([3]);
    // Every click is one positive point in photo pixels inside a tile, at most 3 × 3 a tile.
    expect(withGrid.clicks.length).toBeGreaterThan(0);
    expect(withGrid.clicks.length).toBeLessThanOrEqual(9 * tiles.length);
    for (const points of withGrid.clicks) {
      expect(points).toHaveLength(1);
      expect(tiles.some((t) => points[0].x >= t.x0 && points[0].x < t.x1 && points[0].y >= t.y0 && points[0].y < t.y1)).toBe(true);
    }
    // None inside what a box asked before the clicks has kept.
    const keptBefore = withGrid.found.proposals.filter((p) => withGrid.boxesBefore.has(JSON.stringify(p.prompt.box)));
    expect(keptBefore.length).toBeGreaterThan(0);
    const covered = (x: number, y: number) => keptBefore.some((p) => p.mask.data[Math.floor(y) * image.width + Math.floor(x)]);
    expect(withGrid.clicks.filter(([p]) => covered(p.x, p.y))).toEqual([]);
    expect(withGrid.found.tilesEncoded).toBe(0);
    // Without grid stages no click at all.
    expect((await clicks([])).clicks).toEqual([]);
  }, 300_000);

  it('refuses an image that was not embedded', async () => {
    await expect(segmentEverything(engine, 'never-embedded')).rejects.toThrow(/embed/);
  });
});
