/**
 * Tiles for segment everything's thorough pass (SAHI's slicing, for the encoder): the encoder sees
 * every photo at 1024 px on its longer side, so an object of 20 px in a 640 px photo covers about two
 * of its 16 px patches. A tile of half the photo, re-encoded at 1024 px, shows the same object twice
 * as large. Here: where the tiles lie, how a mask found in a tile goes back onto the photo, and which
 * of a tile's masks to leave to the whole photo (objects the tile's edge cuts).
 */
import type { PixelBounds } from '../bounds';
import { maskBounds } from '../bounds';
import { boxIoU, type CornerBox } from '../text/detector';
import type { MaskCrop } from '../upsample';
import { MODEL_SIZE } from '../frame';

/** Side of one of SAM's image-encoder patches in its 1024 px input (a 64×64 grid of tokens). */
const ENCODER_PATCH = 16;

/** A rectangle of the photo in integer pixels, x1 and y1 exclusive (cropImage's box). */
export interface TileRect {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

/**
 * `perSide` × `perSide` tiles covering a `width` × `height` photo, each overlapping its neighbour by
 * `overlap` of its own side (so an object cut by one tile's edge lies whole in the next one when it
 * is smaller than the overlap), row by row. perSide 1 (or less) is the whole photo.
 */
export function tileRects(width: number, height: number, perSide: number, overlap: number): TileRect[] {
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) throw new RangeError(`photo size must be positive integers, got ${width}×${height}`);
  if (!(overlap >= 0 && overlap < 1)) throw new RangeError(`tile overlap must be in [0, 1), got ${overlap}`);
  const n = Math.max(1, Math.floor(perSide));
  const spans = (size: number): [number, number][] => {
    if (n === 1) return [[0, size]];
    // n tiles of side s, consecutive ones sharing overlap·s: n·s − (n − 1)·overlap·s = size.
    const side = Math.min(size, Math.ceil(size / (n - (n - 1) * overlap)));
    const out: [number, number][] = [];
    for (let k = 0; k < n; k++) {
      const start = Math.round((k * (size - side)) / (n - 1));
      out.push([start, start + side]);
    }
    return out;
  };
  const rows = spans(height);
  const columns = spans(width);
  return rows.flatMap(([y0, y1]) => columns.map(([x0, x1]) => ({ x0, y0, x1, y1 })));
}

/** A mask crop found in a tile (tile pixels), as a crop of the photo. */
export function tileCropToPhoto(crop: MaskCrop, tile: TileRect): MaskCrop {
  return { x: crop.x + tile.x0, y: crop.y + tile.y0, mask: crop.mask };
}

/** A box in tile pixels, in photo pixels. */
export function tileBoxToPhoto(box: CornerBox, tile: TileRect): CornerBox {
  return { x0: box.x0 + tile.x0, y0: box.y0 + tile.y0, x1: box.x1 + tile.x0, y1: box.y1 + tile.y0 };
}

/** The set pixels' bounds of a photo crop, in photo pixels (x1, y1 inclusive); undefined when empty. */
export function cropBounds(crop: MaskCrop): PixelBounds | undefined {
  const b = maskBounds(crop.mask.data, crop.mask.width, crop.mask.height, crop.mask.width);
  return b && { x0: b.x0 + crop.x, y0: b.y0 + crop.y, x1: b.x1 + crop.x, y1: b.y1 + crop.y };
}

/**
 * Whether a mask (photo pixels) reaches an edge of its tile that lies inside the photo: the object
 * probably goes on beyond the crop, so the tile saw part of it. The photo's own edges do not count;
 * there the whole photo's pass would see no more.
 */
export function cutByTileEdge(crop: MaskCrop, tile: TileRect, photoWidth: number, photoHeight: number): boolean {
  const b = cropBounds(crop);
  if (!b) return false;
  return (
    (tile.x0 > 0 && b.x0 <= tile.x0) ||
    (tile.y0 > 0 && b.y0 <= tile.y0) ||
    (tile.x1 < photoWidth && b.x1 >= tile.x1 - 1) ||
    (tile.y1 < photoHeight && b.y1 >= tile.y1 - 1)
  );
}

/**
 * The detections a tile's detector run found (tile pixels) that no proposal kept so far repeats (photo
 * pixels, from the photo or an earlier tile): the merge across tiles, before any decoder run. An object
 * in the overlap of two tiles is boxed in both; the second tile does not ask about it again.
 */
export function unfoundInTile<T extends { readonly box: CornerBox }>(detections: readonly T[], tile: TileRect, found: readonly CornerBox[], nmsIou: number): T[] {
  return detections.filter((d) => {
    const onPhoto = tileBoxToPhoto(d.box, tile);
    return found.every((box) => boxIoU(box, onPhoto) <= nmsIou);
  });
}

/** Pixels of the view a proposal was found on: its tile, or the whole photo. */
function viewArea(tile: TileRect | undefined, photoWidth: number, photoHeight: number): number {
  return tile ? (tile.x1 - tile.x0) * (tile.y1 - tile.y0) : photoWidth * photoHeight;
}

/** What the merge across crops compares: where a proposal lies on the photo, and the view that found it. */
export interface CropFound {
  readonly box: CornerBox;
  readonly tile?: TileRect;
}

/**
 * The merge across crops for one new candidate: the kept proposals it replaces ([] when it overlaps
 * none), or undefined when one it overlaps stays instead. Overlap is box IoU above `nmsIou`. With
 * `preferSmallerCrop` (SAM's automatic mask generator does the same across its crop layers), a
 * candidate replaces what it overlaps when every one of those was found on a larger view: the
 * smaller crop saw the object at a higher resolution, and a mask it cut was dropped before this
 * (`cutByTileEdge`), so what reaches here is whole. Otherwise what was kept first stays.
 */
export function mergeAcrossCrops<T extends CropFound>(
  kept: readonly T[],
  candidate: CropFound,
  nmsIou: number,
  preferSmallerCrop: boolean,
  photoWidth: number,
  photoHeight: number,
): T[] | undefined {
  const overlapping = kept.filter((k) => boxIoU(k.box, candidate.box) > nmsIou);
  if (overlapping.length === 0) return [];
  if (!preferSmallerCrop) return undefined;
  const own = viewArea(candidate.tile, photoWidth, photoHeight);
  return overlapping.every((k) => viewArea(k.tile, photoWidth, photoHeight) > own) ? overlapping : undefined;
}

/**
 * Whether a box (photo pixels) reaches within `margin` pixels of an edge of its tile that lies inside
 * the photo: the tile cuts the object, so decoding that box on the tile would give a mask
 * `cutByTileEdge` drops.
 */
export function boxAtInnerEdge(box: CornerBox, tile: TileRect, photoWidth: number, photoHeight: number, margin: number): boolean {
  return (
    (tile.x0 > 0 && box.x0 <= tile.x0 + margin) ||
    (tile.y0 > 0 && box.y0 <= tile.y0 + margin) ||
    (tile.x1 < photoWidth && box.x1 >= tile.x1 - margin) ||
    (tile.y1 < photoHeight && box.y1 >= tile.y1 - margin)
  );
}

/**
 * A tile's detections (tile pixels) split by whether the photo's encoder sees them small: a longer
 * side under `maxPatches` of its 16 px patches at the encoder's input scale.
 */
export function splitBySize<T extends { readonly box: CornerBox }>(detections: readonly T[], photoWidth: number, photoHeight: number, maxPatches: number): { small: T[]; large: T[] } {
  const small: T[] = [];
  const large: T[] = [];
  for (const d of detections) (seenSmall(d.box, photoWidth, photoHeight, maxPatches) ? small : large).push(d);
  return { small, large };
}

/** Whether the photo's encoder sees a box (photo or tile pixels: the same scale) with a longer side under `maxPatches` of its patches. */
export function seenSmall(box: CornerBox, photoWidth: number, photoHeight: number, maxPatches: number): boolean {
  const patchInPhoto = (ENCODER_PATCH * Math.max(photoWidth, photoHeight)) / MODEL_SIZE;
  return Math.max(box.x1 - box.x0, box.y1 - box.y0) < maxPatches * patchInPhoto;
}

/** Whether a box's centre (photo pixels) lies in the tile: the one tile, or the few overlapping ones, that sees the box's object. */
export function holdsCentreOf(tile: TileRect, box: CornerBox): boolean {
  const x = (box.x0 + box.x1) / 2;
  const y = (box.y0 + box.y1) / 2;
  return x >= tile.x0 && x < tile.x1 && y >= tile.y0 && y < tile.y1;
}
