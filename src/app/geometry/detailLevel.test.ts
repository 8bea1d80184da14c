import { describe, expect, it } from 'vitest';
import { DEFAULT_SEGMENTATION_OPTIONS } from '../../engine/options';
import { DETAIL_MAX, detailFromTolerance, toleranceFromDetail } from './detailLevel';

describe('detail level', () => {
  it('more detail means a smaller simplification tolerance, in the same direction as the number', () => {
    expect(toleranceFromDetail(DETAIL_MAX)).toBe(0);
    expect(toleranceFromDetail(0)).toBe(4);
    expect(toleranceFromDetail(8)).toBeLessThan(toleranceFromDetail(3));
  });

  it('round-trips every level and maps the default tolerance to a level', () => {
    for (let level = 0; level <= DETAIL_MAX; level++) expect(detailFromTolerance(toleranceFromDetail(level))).toBe(level);
    expect(detailFromTolerance(DEFAULT_SEGMENTATION_OPTIONS.tolerance)).toBe(8);
  });
});
