import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SegmentationEngine } from '../engine';
import { maskIoU } from '../polygons';
import type { ObjectDetector } from '../text/detector';
import type { BinaryMask, RgbaImage } from '../types';
import { decodeImage } from '../adapters/nodeImage';
import { loadTextModels, releaseTextModels } from '../../../test/support/textModels';
import { sharedPath } from '../../../test/support/sharedData';
import { TextService } from './textService';
import { ENGINE_TRANSFERS } from '../service/api';

// What the engine worker answers for text prompts and "find similar", on the real models (Node runtime).
let engine: SegmentationEngine;
let detector: ObjectDetector;
let chelsea: RgbaImage;
let coffee: RgbaImage;

beforeAll(async () => {
  ({ engine, detector, chelsea, coffee } = await loadTextModels());
});
afterAll(() => releaseTextModels({ engine, detector }));

/** The sample twice, side by side: a picture with two instances of everything in it. */
function sideBySide(image: RgbaImage): RgbaImage {
  const width = image.width * 2;
  const data = new Uint8Array(width * image.height * 4);
  for (let y = 0; y < image.height; y++) {
    const row = image.data.subarray(y * image.width * 4, (y + 1) * image.width * 4);
    data.set(row, y * width * 4);
    data.set(row, (y * width + image.width) * 4);
  }
  return { width, height: image.height, data };
}

describe('TextService', () => {
  it('answers per prompt: the cat with a polygon and mask, an unknown concept, a known one not found; reuses the embedding', async () => {
    await engine.embed(chelsea, 'chelsea');
    const service = new TextService(engine, async () => detector);
    const { results, timings } = await service.segment(chelsea, ['cat', 'giraffe-striped spaceship', 'giraffe'], 'chelsea');
    expect(timings.embeddingCacheHit).toBe(true);

    const [cat, spaceship, giraffe] = results;
    expect(cat).toMatchObject({ text: 'cat', known: true, classes: ['cat'] });
    expect(cat.instances.length).toBeGreaterThanOrEqual(1);
    const best = cat.instances[0];
    expect(best.label).toBe('cat');
    expect(best.confidence).toBeGreaterThan(0.3);
    expect(best.polygons[0].outer.length).toBeGreaterThanOrEqual(3);
    expect([best.mask.width, best.mask.height]).toEqual([chelsea.width, chelsea.height]);
    expect(best.area / (chelsea.width * chelsea.height)).toBeGreaterThan(0.3);

    expect(spaceship).toMatchObject({ known: false, classes: [], instances: [] });
    expect(spaceship.reason).toMatch(/spaceship/);
    expect(giraffe).toMatchObject({ known: true, classes: ['giraffe'], instances: [] });

    // Every mask buffer can go into one transfer list.
    const buffers = ENGINE_TRANSFERS.segmentText!.result!({ results, timings }).map((m) => m.buffer);
    expect(new Set(buffers).size).toBe(buffers.length);
    engine.forget('chelsea');
  });

  it('loads no detector for prompts it cannot understand, and retries a failed load on the next prompt', async () => {
    let loads = 0;
    const service = new TextService(engine, async () => {
      loads++;
      if (loads === 1) throw new Error('offline');
      return detector;
    });
    const unknown = await service.segment(chelsea, ['warp drive', ''], 'chelsea');
    expect(unknown.results.map((r) => r.known)).toEqual([false, false]);
    expect(loads).toBe(0);
    expect(service.detectorRequested).toBe(false);

    await expect(service.segment(chelsea, ['cat'], 'chelsea')).rejects.toThrow('offline');
    const retried = await service.segment(chelsea, ['cat'], 'chelsea');
    expect(loads).toBe(2);
    expect(retried.results[0].instances.length).toBeGreaterThanOrEqual(1);
    engine.forget('chelsea');
  });

  it('answers a COCO prompt with the first detector while the second is still downloading, and pools both once it is in', async () => {
    const { loadNodeCocoSsd } = await import('../adapters/textNode');
    let finishSecond: (() => void) | undefined;
    const secondArrived = new Promise<void>((resolve) => (finishSecond = resolve));
    const cocoSsd = await loadNodeCocoSsd({ threads: 1 });
    const service = new TextService(engine, [
      { name: 'centernet', vocabulary: detector.vocabulary, load: async () => detector },
      { name: 'coco-ssd', vocabulary: cocoSsd.vocabulary, load: () => secondArrived.then(() => cocoSsd) },
    ]);
    await engine.embed(chelsea, 'chelsea');
    // The second download never finishes unless released: the answer must not wait for it.
    const first = await service.segment(chelsea, ['cat'], 'chelsea');
    expect(first.results[0].instances.map((t) => t.label)).toContain('cat');
    finishSecond!();
    await secondArrived;
    await new Promise((resolve) => setTimeout(resolve, 0));
    // Both detectors see the cat; the pool keeps it once (box, then mask IoU), not twice.
    const pooled = await service.segment(chelsea, ['cat'], 'chelsea');
    expect(pooled.results[0].instances.filter((t) => t.label === 'cat')).toHaveLength(1);
    engine.forget('chelsea');
    await cocoSsd.release();
  });

  it("fetches only the named detectors for segment everything's boxes, each once", async () => {
    const fetches: string[] = [];
    const loader = (name: string) => ({
      name,
      vocabulary: detector.vocabulary,
      load: async () => {
        fetches.push(name);
        return detector;
      },
    });
    const service = new TextService(engine, [loader('centernet'), loader('blazeface'), loader('open-images-ssd')]);
    expect(await service.detectorsNamed(['centernet', 'coco-ssd'])).toEqual([detector]);
    expect(await service.detectorsNamed(['centernet'])).toEqual([detector]);
    expect(fetches).toEqual(['centernet']);
    expect(await service.detectorsNamed(['nothing-loaded'])).toEqual([]);
  });

  it('never fetches the Open Images SSD for a COCO prompt; fetches it once for "shoes", which it outlines', async () => {
    const { loadNodeOpenImagesDetector } = await import('../adapters/textNode');
    const { OPEN_IMAGES_CONCEPTS } = await import('../text/openImagesSsd');
    const openImages = await loadNodeOpenImagesDetector({ threads: 1 });
    let fetches = 0;
    const service = new TextService(engine, [
      { name: 'centernet', vocabulary: detector.vocabulary, load: async () => detector },
      {
        name: 'open-images-ssd',
        vocabulary: OPEN_IMAGES_CONCEPTS,
        load: async () => {
          fetches++;
          return openImages;
        },
      },
    ]);
    await engine.embed(chelsea, 'chelsea');
    const cat = await service.segment(chelsea, ['cat', 'people'], 'chelsea');
    expect(cat.results[0].instances.map((t) => t.label)).toContain('cat');
    expect(fetches).toBe(0);
    engine.forget('chelsea');

    const tennis = await decodeImage(readFileSync(sharedPath('eval/grabcut/images/tennis.jpg')));
    await engine.embed(tennis, 'tennis');
    const first = await service.segment(tennis, ['shoes'], 'tennis');
    const again = await service.segment(tennis, ['sneakers', 'tennis racket'], 'tennis');
    expect(fetches).toBe(1);
    const shoes = first.results[0];
    expect(shoes).toMatchObject({ known: true });
    expect([...shoes.classes].sort()).toEqual(['footwear', 'high heels']);
    const footwear = shoes.instances.filter((t) => t.label === 'footwear');
    expect(footwear.length).toBeGreaterThanOrEqual(2);
    for (const shoe of footwear.slice(0, 2)) {
      // A shoe-sized mask at the player's feet.
      expect(shoe.area / (tennis.width * tennis.height)).toBeLessThan(0.02);
      expect(Math.min(...shoe.polygons[0].outer.map(([, y]) => y))).toBeGreaterThan(0.8 * tennis.height);
    }
    expect(again.results[0].instances.filter((t) => t.label === 'footwear').length).toBe(footwear.length);
    engine.forget('tennis');
    await openImages.release();
  });

  it('finds the other cup in a picture of two, never the source', async () => {
    const twoCups = sideBySide(coffee);
    const service = new TextService(engine, async () => detector);
    await engine.embed(twoCups, 'two-cups');
    const cups = (await service.segment(twoCups, ['cup'], 'two-cups')).results[0].instances;
    expect(cups.length).toBeGreaterThanOrEqual(1);
    const source = cups[0].mask;

    const { instances, rejected } = await service.findSimilar('two-cups', source, { tolerance: 1 });
    expect(instances.length).toBeGreaterThanOrEqual(1);
    expect(rejected).toBeGreaterThanOrEqual(0);
    for (const found of instances) {
      expect(found.polygons.length).toBeGreaterThanOrEqual(1);
      expect(maskIoU(found.mask, source)).toBeLessThan(0.3);
    }
    // The best match lies in the other half of the picture.
    const other = instances[0].polygons[0].outer;
    const meanX = other.reduce((s, [x]) => s + x, 0) / other.length;
    const sourceX = cups[0].polygons[0].outer.reduce((s, [x]) => s + x, 0) / cups[0].polygons[0].outer.length;
    expect(meanX < coffee.width).not.toBe(sourceX < coffee.width);
    await expect(service.findSimilar('not-embedded', source)).rejects.toThrow(/no embedding/);
    engine.forget('two-cups');
  });

  it("with the photo and the 'detected' rule, reads the example as a cup and proposes the other cup from the detections", async () => {
    const twoCups = sideBySide(coffee);
    const service = new TextService(engine, async () => detector);
    await engine.embed(twoCups, 'two-cups');
    const cups = (await service.segment(twoCups, ['cup'], 'two-cups')).results[0].instances;
    const [source] = cups;
    const meanX = (mask: BinaryMask) => {
      let sum = 0;
      let n = 0;
      for (let i = 0; i < mask.data.length; i++) if (mask.data[i]) (sum += i % mask.width), n++;
      return sum / n;
    };
    // The cup in the other half of the picture.
    const other = cups.find((c) => meanX(c.mask) < coffee.width !== meanX(source.mask) < coffee.width)!;
    expect(other).toBeDefined();
    const { instances, classes } = await service.findSimilar('two-cups', source.mask, { tolerance: 1 }, { image: twoCups, rule: 'detected' });
    expect(classes).toEqual(['cup']);
    for (const found of instances) {
      expect(found).toMatchObject({ source: 'detector', detectorClass: 'cup' });
      expect(maskIoU(found.mask, source.mask)).toBeLessThan(0.7);
    }
    const again = instances.find((f) => maskIoU(f.mask, other.mask) > 0.9);
    expect(again?.confidence).toBeCloseTo(other.confidence, 6);
    // Both cups as examples: neither is proposed again.
    const rest = await service.findSimilar('two-cups', source.mask, { tolerance: 1 }, { image: twoCups, rule: 'detected', moreExamples: [other.mask] });
    for (const found of rest.instances) for (const example of [source, other]) expect(maskIoU(found.mask, example.mask)).toBeLessThan(0.7);
    engine.forget('two-cups');
  });
});
