import { describe, expect, it } from 'vitest';
import type { MaskCrop } from '../upsample';
import { boxAtInnerEdge, cropBounds, cutByTileEdge, holdsCentreOf, mergeAcrossCrops, splitBySize, tileBoxToPhoto, tileCropToPhoto, tileRects, unfoundInTile } from './tiles';

/** A crop of `w` × `h` pixels at (x, y) with the pixels of `set` ([x, y] within the crop) on. */
function crop(x: number, y: number, w: number, h: number, set: [number, number][]): MaskCrop {
  const data = new Uint8Array(w * h);
  for (const [cx, cy] of set) data[cy * w + cx] = 1;
  return { x, y, mask: { width: w, height: h, data } };
}

describe('tileRects', () => {
  it('one tile per side is the whole photo', () => {
    expect(tileRects(640, 480, 1, 0.2)).toEqual([{ x0: 0, y0: 0, x1: 640, y1: 480 }]);
    expect(tileRects(640, 480, 0, 0)).toEqual([{ x0: 0, y0: 0, x1: 640, y1: 480 }]);
  });

  it('2×2 tiles cover the photo, row by row, each overlapping its neighbour by the share asked', () => {
    const tiles = tileRects(640, 480, 2, 0.2);
    expect(tiles).toHaveLength(4);
    // Side s with 2s − 0.2s = 640: s = 356 (rounded up), so the tiles share 72 px ≥ 0.2 · 356.
    expect(tiles[0]).toEqual({ x0: 0, y0: 0, x1: 356, y1: 267 });
    expect(tiles[1]).toEqual({ x0: 284, y0: 0, x1: 640, y1: 267 });
    expect(tiles[2]).toEqual({ x0: 0, y0: 213, x1: 356, y1: 480 });
    expect(tiles[3]).toEqual({ x0: 284, y0: 213, x1: 640, y1: 480 });
    for (const t of tiles) {
      expect(t.x1 - t.x0).toBe(356);
      expect(t.y1 - t.y0).toBe(267);
    }
    expect(tiles[0].x1 - tiles[1].x0).toBeGreaterThanOrEqual(0.2 * 356);
  });

  it('every pixel lies in some tile, for odd sizes and more tiles', () => {
    for (const [w, h, n, overlap] of [[333, 97, 3, 0.25], [1000, 1000, 4, 0], [17, 5, 2, 0.5]] as const) {
      const tiles = tileRects(w, h, n, overlap);
      expect(tiles).toHaveLength(n * n);
      const seen = new Uint8Array(w * h);
      for (const t of tiles) {
        expect(t.x0).toBeGreaterThanOrEqual(0);
        expect(t.y0).toBeGreaterThanOrEqual(0);
        expect(t.x1).toBeLessThanOrEqual(w);
        expect(t.y1).toBeLessThanOrEqual(h);
        for (let y = t.y0; y < t.y1; y++) for (let x = t.x0; x < t.x1; x++) seen[y * w + x] = 1;
      }
      expect(seen.every((v) => v === 1)).toBe(true);
    }
  });

  it('refuses a bad size or overlap', () => {
    expect(() => tileRects(0, 10, 2, 0.2)).toThrow(RangeError);
    expect(() => tileRects(10, 10, 2, 1)).toThrow(RangeError);
  });
});

describe('mapping a tile’s mask back onto the photo', () => {
  it('a crop and a box move by the tile’s corner; the mask pixels stay the same', () => {
    const tile = { x0: 284, y0: 213, x1: 640, y1: 480 };
    const found = crop(10, 20, 4, 3, [[1, 1]]);
    const onPhoto = tileCropToPhoto(found, tile);
    expect(onPhoto.x).toBe(294);
    expect(onPhoto.y).toBe(233);
    expect(onPhoto.mask).toBe(found.mask);
    expect(cropBounds(onPhoto)).toEqual({ x0: 295, y0: 234, x1: 295, y1: 234 });
    expect(tileBoxToPhoto({ x0: 1, y0: 2, x1: 30, y1: 40 }, tile)).toEqual({ x0: 285, y0: 215, x1: 314, y1: 253 });
  });
});

describe('cutByTileEdge', () => {
  const tile = { x0: 284, y0: 0, x1: 640, y1: 267 }; // top right of a 640×480 photo
  it('a mask touching an edge of the tile inside the photo is cut', () => {
    // The tile's left edge (x 284) lies inside the photo.
    expect(cutByTileEdge(crop(284, 50, 5, 5, [[0, 2]]), tile, 640, 480)).toBe(true);
    // Its bottom edge (last row 266) too.
    expect(cutByTileEdge(crop(400, 262, 5, 5, [[2, 4]]), tile, 640, 480)).toBe(true);
  });

  it('a mask touching only the photo’s own edges, or no edge, is whole', () => {
    // The tile's top (y 0) and right (x 639) are the photo's edges.
    expect(cutByTileEdge(crop(630, 0, 10, 5, [[9, 0]]), tile, 640, 480)).toBe(false);
    expect(cutByTileEdge(crop(400, 100, 10, 10, [[5, 5]]), tile, 640, 480)).toBe(false);
    // A crop whose margin reaches the edge while its set pixels do not.
    expect(cutByTileEdge(crop(284, 100, 10, 10, [[5, 5]]), tile, 640, 480)).toBe(false);
  });
});

describe('unfoundInTile: the merge across tiles', () => {
  const left = { x0: 0, y0: 0, x1: 356, y1: 267 };
  const right = { x0: 284, y0: 0, x1: 640, y1: 267 };
  it('an object in the overlap, found from the left tile, is not asked about again from the right one', () => {
    // A cup at photo x 300–340, kept from the left tile; the right tile boxes it at x 16–56.
    const found = [tileBoxToPhoto({ x0: 300, y0: 100, x1: 340, y1: 140 }, left)];
    const cup = { box: { x0: 16, y0: 100, x1: 56, y1: 140 }, label: 'cup' };
    const saucer = { box: { x0: 60, y0: 100, x1: 100, y1: 140 }, label: 'saucer' };
    expect(unfoundInTile([cup, saucer], right, found, 0.7)).toEqual([saucer]);
  });

  it('a box overlapping a kept one by less than the NMS threshold stays (a neighbour, not a repeat)', () => {
    const found = [{ x0: 300, y0: 100, x1: 340, y1: 140 }];
    // Shifted by 10 px of 40: IoU 30·40 / (2·1600 − 1200) = 0.6.
    const neighbour = { box: { x0: 26, y0: 100, x1: 66, y1: 140 } };
    expect(unfoundInTile([neighbour], right, found, 0.7)).toEqual([neighbour]);
    expect(unfoundInTile([neighbour], right, found, 0.5)).toEqual([]);
  });
});

describe('mergeAcrossCrops: the smaller crop’s whole mask wins', () => {
  // A 640×480 photo cut into 2×2 tiles of 356×267.
  const left = { x0: 0, y0: 0, x1: 356, y1: 267 };
  const right = { x0: 284, y0: 0, x1: 640, y1: 267 };
  const cup = { x0: 300, y0: 100, x1: 340, y1: 140 };
  const sameCup = { x0: 301, y0: 101, x1: 341, y1: 141 };
  const saucer = { x0: 360, y0: 100, x1: 400, y1: 140 };

  it('a tile’s candidate replaces the photo’s proposal of the same object', () => {
    const fromPhoto = { id: 1, box: cup };
    expect(mergeAcrossCrops([fromPhoto], { box: sameCup, tile: right }, 0.7, true, 640, 480)).toEqual([fromPhoto]);
  });

  it('what was found first stays when the candidate’s view is not smaller, or the preference is off', () => {
    const fromLeftTile = { id: 1, box: cup, tile: left };
    // Another tile of the same size: the first tile's mask stays.
    expect(mergeAcrossCrops([fromLeftTile], { box: sameCup, tile: right }, 0.7, true, 640, 480)).toBeUndefined();
    // The photo's own pass never replaces a tile's mask.
    expect(mergeAcrossCrops([fromLeftTile], { box: sameCup }, 0.7, true, 640, 480)).toBeUndefined();
    // Without the preference, the photo's proposal stays too (the rule before crops were preferred).
    expect(mergeAcrossCrops([{ id: 1, box: cup }], { box: sameCup, tile: right }, 0.7, false, 640, 480)).toBeUndefined();
  });

  it('a candidate replaces nothing when it overlaps nothing, and only what it overlaps otherwise', () => {
    const kept = [
      { id: 1, box: cup },
      { id: 2, box: saucer },
    ];
    expect(mergeAcrossCrops(kept, { box: { x0: 500, y0: 200, x1: 520, y1: 220 }, tile: right }, 0.7, true, 640, 480)).toEqual([]);
    expect(mergeAcrossCrops(kept, { box: sameCup, tile: right }, 0.7, true, 640, 480)).toEqual([kept[0]]);
  });

  it('one overlapping proposal from a view as small keeps the candidate out', () => {
    const kept = [
      { id: 1, box: cup },
      { id: 2, box: sameCup, tile: left },
    ];
    expect(mergeAcrossCrops(kept, { box: cup, tile: right }, 0.7, true, 640, 480)).toBeUndefined();
  });
});

describe('boxAtInnerEdge: a tile’s box its inner edge cuts is not decoded there', () => {
  const tile = { x0: 284, y0: 0, x1: 640, y1: 267 }; // top right of a 640×480 photo
  it('a box reaching the tile’s left or bottom edge (inside the photo) is cut', () => {
    expect(boxAtInnerEdge({ x0: 284, y0: 50, x1: 320, y1: 90 }, tile, 640, 480, 1)).toBe(true);
    expect(boxAtInnerEdge({ x0: 285, y0: 50, x1: 320, y1: 90 }, tile, 640, 480, 1)).toBe(true);
    expect(boxAtInnerEdge({ x0: 400, y0: 230, x1: 440, y1: 266 }, tile, 640, 480, 1)).toBe(true);
  });

  it('a box at the photo’s own edges, or clear of the inner ones, is whole', () => {
    expect(boxAtInnerEdge({ x0: 600, y0: 0, x1: 640, y1: 40 }, tile, 640, 480, 1)).toBe(false);
    expect(boxAtInnerEdge({ x0: 286, y0: 50, x1: 320, y1: 264 }, tile, 640, 480, 1)).toBe(false);
  });
});

describe('splitBySize', () => {
  const box = (side: number, label: string) => ({ label, box: { x0: 10, y0: 10, x1: 10 + side, y1: 10 + side / 2 } });

  it("measures a box's longer side in the photo encoder's patches: 16 px of its 1024 px input", () => {
    // A 2048 px photo is halved for the encoder: a patch covers 32 of its pixels, 8 patches 256.
    const { small, large } = splitBySize([box(255, 'under'), box(256, 'at'), box(40, 'tiny')], 2048, 1000, 8);
    expect(small.map((d) => d.label)).toEqual(['under', 'tiny']);
    expect(large.map((d) => d.label)).toEqual(['at']);
  });

  it('a photo smaller than the encoder input is enlarged: the same box spans more patches', () => {
    // 512 px: a patch covers 8 photo pixels, so 60 px is 7.5 patches and 70 px is 8.75.
    expect(splitBySize([box(60, 'a'), box(70, 'b')], 512, 300, 8).small.map((d) => d.label)).toEqual(['a']);
  });

  it('Infinity keeps every box small (all on the tile); 0 none', () => {
    const boxes = [box(5, 'a'), box(900, 'b')];
    expect(splitBySize(boxes, 1024, 1024, Infinity).small).toHaveLength(2);
    expect(splitBySize(boxes, 1024, 1024, 0).large).toHaveLength(2);
  });

  it('holdsCentreOf: a box belongs to the tiles its centre lies in, the overlap to both', () => {
    const [left, right] = tileRects(100, 50, 2, 0.2);
    const onLeft = { x0: 10, y0: 10, x1: 20, y1: 20 };
    expect(holdsCentreOf(left, onLeft)).toBe(true);
    expect(holdsCentreOf(right, onLeft)).toBe(false);
    // In the shared strip (x 45..55): both tiles see it.
    const shared = { x0: 48, y0: 10, x1: 52, y1: 20 };
    expect(holdsCentreOf(left, shared) && holdsCentreOf(right, shared)).toBe(true);
    // A wide box reaching into the right tile, centred in the left one only.
    expect(holdsCentreOf(right, { x0: 0, y0: 0, x1: 70, y1: 10 })).toBe(false);
  });
});
