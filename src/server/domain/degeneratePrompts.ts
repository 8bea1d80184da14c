/**
 * Requests that can only come back empty. Such a call used to be charged, run through the encoder
 * and refunded, which made it free compute: refused instead as a 400 `degenerate-prompt` naming
 * the rule, before anything is charged or handed to a worker.
 */
import type { Box, Point } from '../../contract/segmentation';
import { LIMITS } from '../../contract/limits';
import { DomainError } from './errors';
import type { ImageSize } from './imageField';

export type DegenerateRule = 'box-under-one-pixel' | 'image-under-minimum-size' | 'subnormal-number';

/** The smallest positive normal double; anything between it and 0 is subnormal. */
const MIN_NORMAL = 2.2250738585072014e-308;

const isSubnormal = (value: number) => value !== 0 && Math.abs(value) < MIN_NORMAL;

function refuse(rule: DegenerateRule, detail: string, errors: { path: string; message: string }[]): never {
  throw new DomainError('degenerate-prompt', `${rule}: ${detail}`, { errors, members: { rule } });
}

/**
 * Throws 400 degenerate-prompt for a box narrower or lower than one pixel, then for a subnormal
 * coordinate or size (a point at 5e-324 is no use either).
 */
export function checkPromptsNotDegenerate(prompts: { points?: Point[]; box?: Box }): void {
  const box = prompts.box;
  if (box && (box.width < 1 || box.height < 1)) {
    const errors = (['width', 'height'] as const)
      .filter((side) => box[side] < 1)
      .map((side) => ({ path: `box.${side}`, message: `box ${side} ${box[side]} is under one pixel` }));
    refuse('box-under-one-pixel', 'a box must be at least 1 pixel wide and 1 pixel high', errors);
  }
  const numbers: [string, number][] = [];
  prompts.points?.forEach((p, i) => numbers.push([`points.${i}.x`, p.x], [`points.${i}.y`, p.y]));
  if (box) numbers.push(['box.x', box.x], ['box.y', box.y]); // its sizes are at least 1 by now
  const subnormal = numbers.filter(([, value]) => isSubnormal(value));
  if (subnormal.length) {
    refuse(
      'subnormal-number',
      'coordinates and sizes must be 0 or at least 2.2e-308 (no subnormal floats)',
      subnormal.map(([path, value]) => ({ path, message: `${value} is a subnormal number` })),
    );
  }
}

/** Throws 400 degenerate-prompt for an image under the minimum side (LIMITS.imageMinSide). */
export function checkImageLargeEnough(size: ImageSize): void {
  const min = LIMITS.imageMinSide;
  if (size.width >= min && size.height >= min) return;
  refuse('image-under-minimum-size', `the image is ${size.width} × ${size.height} pixels; at least ${min} pixels on each side are needed`, [
    { path: 'image', message: `${size.width} × ${size.height} pixels is under ${min} × ${min}` },
  ]);
}
