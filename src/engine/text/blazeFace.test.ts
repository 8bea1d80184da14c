import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeImage } from '../adapters/nodeImage';
import { loadNodeEngine } from '../adapters/ortNode';
import { loadNodeFaceDetector } from '../adapters/textNode';
import type { SegmentationEngine } from '../engine';
import { maskPixelCount } from '../polygons';
import { blazeFaceAnchors, decodeBlazeFace, BLAZEFACE_MIN_SCORE, type FaceDetector } from './blazeFace';
import { TextPipeline } from './pipeline';
import { sharedPath } from '../../../test/support/sharedData';

function grids(hit?: { grid: number; anchor: number; logit: number; regressors: number[] }) {
  const out = [512, 384].map((n) => ({ logits: new Float32Array(n).fill(-10), regressors: new Float32Array(n * 16) }));
  if (hit) {
    out[hit.grid].logits[hit.anchor] = hit.logit;
    out[hit.grid].regressors.set(hit.regressors, hit.anchor * 16);
  }
  return out;
}

describe('BlazeFace decoding', () => {
  it('places the anchors at the cell centres of a 16×16 grid (2 per cell) and an 8×8 grid (6 per cell)', () => {
    const [fine, coarse] = blazeFaceAnchors();
    expect(fine.length / 2).toBe(512);
    expect(coarse.length / 2).toBe(384);
    expect([...fine.slice(0, 6)]).toEqual([8, 8, 8, 8, 24, 8]);
    expect([...coarse.slice(12, 14)]).toEqual([48, 16]);
  });

  it('decodes the centre offset and size in input pixels and scales them to the image', () => {
    // Anchor 2 of the fine grid sits at (24, 8); the box is centred 8 px right of it, 32 × 16 px.
    const [face] = decodeBlazeFace(grids({ grid: 0, anchor: 2, logit: 2, regressors: [8, 0, 32, 16] }), 512, 1024);
    expect(face.label).toBe('face');
    expect(face.score).toBeCloseTo(1 / (1 + Math.exp(-2)));
    expect(face.box).toEqual({ x0: 32, y0: 0, x1: 96, y1: 64 });
  });

  it("keeps nothing under the upstream's minimum score, whatever the caller's floor", () => {
    const logit = Math.log((BLAZEFACE_MIN_SCORE - 0.01) / (1 - BLAZEFACE_MIN_SCORE + 0.01));
    expect(decodeBlazeFace(grids({ grid: 1, anchor: 5, logit, regressors: [0, 0, 40, 40] }), 256, 256, { minScore: 0.02 })).toEqual([]);
  });
});

describe('the face detector on real photos', () => {
  let detector: FaceDetector;
  let engine: SegmentationEngine;
  beforeAll(async () => {
    detector = await loadNodeFaceDetector({ threads: 1 });
    engine = await loadNodeEngine({ threads: 1 });
  });
  afterAll(async () => {
    await detector.release();
    await engine.release();
  });

  it("finds the astronaut's face (upper middle of astronaut.png) and no face in coffee.png or rocket.jpg", async () => {
    const astronaut = await decodeImage(readFileSync(sharedPath('samples/astronaut.png')));
    const faces = await detector.detect(astronaut);
    expect(faces).toHaveLength(1);
    const { box } = faces[0];
    expect(faces[0].detector).toBe('blazeface');
    expect((box.x0 + box.x1) / 2).toBeGreaterThan(180);
    expect((box.x0 + box.x1) / 2).toBeLessThan(280);
    expect(box.y0).toBeLessThan(120);
    expect(box.x1 - box.x0).toBeLessThan(160);
    for (const file of ['samples/coffee.png', 'samples/rocket.jpg']) {
      expect(await detector.detect(await decodeImage(readFileSync(sharedPath(file)))), file).toEqual([]);
    }
  });

  it('answers the prompt "faces" with a SAM mask of the face, labelled face, and "nose" as unknown', async () => {
    const astronaut = await decodeImage(readFileSync(sharedPath('samples/astronaut.png')));
    const pipeline = new TextPipeline(engine, [detector]);
    const { results } = await pipeline.run(astronaut, ['faces', 'nose'], 'astronaut');
    const [faces, nose] = results;
    expect(faces.instances).toHaveLength(1);
    const [face] = faces.instances;
    expect(face.label).toBe('face');
    expect(face.detector).toBe('blazeface');
    const pixels = maskPixelCount(face.mask);
    // A face, not the whole astronaut: a few percent of the photo.
    expect(pixels).toBeGreaterThan(0.015 * 512 * 512);
    expect(pixels).toBeLessThan(0.12 * 512 * 512);
    expect(nose.interpretation.classes).toEqual([]);
    expect(nose.instances).toEqual([]);
  });
});
