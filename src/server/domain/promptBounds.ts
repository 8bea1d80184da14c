/**
 * Points and boxes must lie on the image. A prompt beside it would still be charged and answered
 * with some mask (the decoder clamps nothing), so it is refused as a 400 before any charge, naming
 * the image's size: the caller most likely scaled its coordinates for another size of the photo.
 */
import type { Box, Point } from '../../contract/segmentation';
import { DomainError } from './errors';
import type { ImageSize } from './imageField';

/** Throws 400 validation-failed, listing every point (and the box) outside `size`. */
export function checkPromptsInside(prompts: { points?: Point[]; box?: Box }, size: ImageSize): void {
  const inside = (x: number, y: number) => x >= 0 && y >= 0 && x <= size.width && y <= size.height;
  const errors: { path: string; message: string }[] = [];
  prompts.points?.forEach((p, i) => {
    if (!inside(p.x, p.y)) errors.push({ path: `points.${i}`, message: `point (${p.x}, ${p.y}) is outside the image (${size.width} × ${size.height} pixels)` });
  });
  // Center-anchored: the box is on the image when its center is.
  const box = prompts.box;
  if (box && !inside(box.x, box.y)) {
    errors.push({ path: 'box', message: `box center (${box.x}, ${box.y}) is outside the image (${size.width} × ${size.height} pixels)` });
  }
  if (errors.length) {
    throw new DomainError('validation-failed', `prompts must lie on the image, which is ${size.width} × ${size.height} pixels`, { errors });
  }
}
