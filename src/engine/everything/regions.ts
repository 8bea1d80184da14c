/**
 * Small-region cleanup of a proposed mask (SAM's automatic mask generator's `min_mask_region_area`):
 * holes smaller than `minArea` are filled, then islands smaller than `minArea` are removed — unless
 * that would remove every island, when the largest stays (a small object is still an object).
 */
import { labelComponents } from '../polygons';
import type { BinaryMask } from '../types';

function componentSizes(labels: Int32Array, count: number): Int32Array {
  const sizes = new Int32Array(count + 1);
  for (let i = 0; i < labels.length; i++) sizes[labels[i]]++;
  return sizes;
}

/** Returns the same mask object when nothing changed. */
export function removeSmallRegions(mask: BinaryMask, minArea: number): BinaryMask {
  if (minArea <= 0) return mask;
  const { width, height } = mask;
  let data = mask.data;
  let changed = false;

  // Holes: components of the background that do not touch the border.
  const inverse = { width, height, data: data.map((v) => 1 - v) };
  const holes = labelComponents(inverse);
  if (holes.count > 0) {
    const sizes = componentSizes(holes.labels, holes.count);
    const touchesBorder = new Uint8Array(holes.count + 1);
    for (let x = 0; x < width; x++) {
      touchesBorder[holes.labels[x]] = 1;
      touchesBorder[holes.labels[(height - 1) * width + x]] = 1;
    }
    for (let y = 0; y < height; y++) {
      touchesBorder[holes.labels[y * width]] = 1;
      touchesBorder[holes.labels[y * width + width - 1]] = 1;
    }
    for (let i = 0; i < data.length; i++) {
      const l = holes.labels[i];
      if (l && !touchesBorder[l] && sizes[l] < minArea) {
        if (!changed) data = data.slice();
        changed = true;
        data[i] = 1;
      }
    }
  }

  const islands = labelComponents({ width, height, data });
  if (islands.count > 1) {
    const sizes = componentSizes(islands.labels, islands.count);
    let largest = 1;
    for (let l = 2; l <= islands.count; l++) if (sizes[l] > sizes[largest]) largest = l;
    for (let i = 0; i < data.length; i++) {
      const l = islands.labels[i];
      if (l && l !== largest && sizes[l] < minArea) {
        if (!changed) data = data.slice();
        changed = true;
        data[i] = 0;
      }
    }
  }
  return changed ? { width, height, data } : mask;
}
