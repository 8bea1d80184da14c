/**
 * Point prompts spread evenly over a photo: SAM's automatic mask generator's grid (`n` points per
 * side, each at the centre of its cell, so none sits on the border), in image pixels.
 */
import type { PointPrompt } from '../types';

export function pointGrid(side: number, width: number, height: number): PointPrompt[] {
  if (!(Number.isInteger(side) && side > 0)) throw new RangeError(`grid side must be a positive integer, got ${side}`);
  const points: PointPrompt[] = [];
  for (let row = 0; row < side; row++) {
    for (let col = 0; col < side; col++) {
      points.push({ x: ((col + 0.5) / side) * width, y: ((row + 0.5) / side) * height, positive: true });
    }
  }
  return points;
}
