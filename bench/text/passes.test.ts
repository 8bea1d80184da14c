import { describe, expect, it } from 'vitest';
import type { RgbaImage } from '../../src/engine/types';
import type { ConceptDetector, CornerBox, Detection } from '../../src/engine/text/detector';
import { cropImage } from '../../src/engine/crop';
import { cutByInnerEdge, detectWithPasses, mirrorBox, passCount, tileRegions, tilingAddsDetail } from './passes';

/** A photo, black but for white rectangles. */
function photo(width: number, height: number, whites: readonly CornerBox[]): RgbaImage {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const white = whites.some((b) => x >= b.x0 && x < b.x1 && y >= b.y0 && y < b.y1);
      data.set(white ? [255, 255, 255, 255] : [0, 0, 0, 255], (y * width + x) * 4);
    }
  }
  return { width, height, data };
}

/** A detector that really looks at the pixels: the bounding box of the white ones is a "cat". */
function whiteDetector(inputSize: number): ConceptDetector & { runs: number } {
  return {
    name: 'white',
    vocabulary: ['cat'],
    inputSize,
    runs: 0,
    async detect(image: RgbaImage): Promise<Detection[]> {
      this.runs++;
      let box: CornerBox | undefined;
      for (let y = 0; y < image.height; y++) {
        for (let x = 0; x < image.width; x++) {
          if (image.data[(y * image.width + x) * 4] !== 255) continue;
          box = box ? { x0: Math.min(box.x0, x), y0: Math.min(box.y0, y), x1: Math.max(box.x1, x + 1), y1: Math.max(box.y1, y + 1) } : { x0: x, y0: y, x1: x + 1, y1: y + 1 };
        }
      }
      return box ? [{ classIndex: 15, label: 'cat', score: 0.8, box, detector: 'white' }] : [];
    },
    async release() {},
  };
}

describe('detection passes: geometry', () => {
  it('lays a 2×2 grid of tiles over the photo, neighbours overlapping by a quarter of a tile', () => {
    const tiles = tileRegions(700, 350);
    expect(tiles).toEqual([
      { x0: 0, y0: 0, x1: 400, y1: 200 },
      { x0: 300, y0: 0, x1: 700, y1: 200 },
      { x0: 0, y0: 150, x1: 400, y1: 350 },
      { x0: 300, y0: 150, x1: 700, y1: 350 },
    ]);
  });

  it('tiles only when a tile is at least the detector input (else it would only be upsampled)', () => {
    expect(tilingAddsDetail(640, 480, 512)).toBe(false);
    expect(tilingAddsDetail(640, 480, 300)).toBe(true);
    expect(tilingAddsDetail(1024, 683, 512)).toBe(true);
    const detector = { inputSize: 512 };
    expect(passCount(detector, 640, 480, { mirror: true, tiles: true, fusion: 'wbf' })).toBe(2);
    expect(passCount(detector, 1024, 683, { mirror: true, tiles: true, fusion: 'wbf' })).toBe(6);
    expect(passCount(detector, 1024, 683, { mirror: false, tiles: false, fusion: 'wbf' })).toBe(1);
  });

  it('crops pixels, mirrors boxes back, and tells a box cut by an inner tile edge from one at the photo edge', () => {
    const image = photo(10, 10, [{ x0: 6, y0: 2, x1: 8, y1: 4 }]);
    const crop = cropImage(image, { x0: 5, y0: 1, x1: 9, y1: 5 });
    expect(crop.width).toBe(4);
    expect(crop.data[(1 * 4 + 1) * 4]).toBe(255);
    expect(crop.data[0]).toBe(0);
    expect(mirrorBox({ x0: 10, y0: 5, x1: 30, y1: 9 }, 100)).toEqual({ x0: 70, y0: 5, x1: 90, y1: 9 });
    const tile = { x0: 0, y0: 0, x1: 457, y1: 343 };
    expect(cutByInnerEdge({ x0: 420, y0: 100, x1: 457, y1: 160 }, tile, 800, 600)).toBe(true);
    expect(cutByInnerEdge({ x0: 0, y0: 0, x1: 100, y1: 100 }, tile, 800, 600)).toBe(false);
  });
});

describe('detection passes on pixels', () => {
  it('maps the mirrored pass back onto the same object, so passes agree instead of doubling it', async () => {
    const square = { x0: 100, y0: 200, x1: 180, y1: 260 };
    const detector = whiteDetector(1000);
    for (const fusion of ['suppress', 'wbf'] as const) {
      const found = await detectWithPasses(detector, photo(800, 600, [square]), { mirror: true, tiles: false, fusion });
      expect(found).toHaveLength(1);
      expect(found[0].box).toEqual(square);
      expect(found[0].score).toBeCloseTo(0.8);
    }
    expect(detector.runs).toBe(4);
  });

  it('brings tile boxes back to photo pixels and drops the part an inner tile edge cut off', async () => {
    // Tiles of 800×600 are 457×343; x 420–500 crosses the first column's right edge at 457.
    const square = { x0: 420, y0: 100, x1: 500, y1: 160 };
    const detector = whiteDetector(300);
    const found = await detectWithPasses(detector, photo(800, 600, [square]), { mirror: false, tiles: true, fusion: 'suppress' });
    expect(detector.runs).toBe(5);
    expect(found.map((d) => d.box)).toEqual([square]);
    // WBF of the whole photo and the one tile that saw all of it: the same box, full score.
    const fused = await detectWithPasses(detector, photo(800, 600, [square]), { mirror: false, tiles: true, fusion: 'wbf' });
    expect(fused).toHaveLength(1);
    expect(fused[0].box.x0).toBeCloseTo(420);
    expect(fused[0].box.x1).toBeCloseTo(500);
  });
});
