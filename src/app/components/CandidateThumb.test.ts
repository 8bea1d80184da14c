import { describe, expect, it } from 'vitest';
import { thumbnailView } from './CandidateThumb';

describe('candidate thumbnail', () => {
  it('is cropped to the candidate with a margin, inside the image', () => {
    const polygons = [{ outer: [[100, 50], [140, 50], [140, 70], [100, 70]] as [number, number][], holes: [] }];
    expect(thumbnailView({ width: 600, height: 400 }, polygons)).toEqual([90, 40, 60, 40]);
    const corner = [{ outer: [[0, 0], [20, 0], [20, 20], [0, 20]] as [number, number][], holes: [] }];
    expect(thumbnailView({ width: 600, height: 400 }, corner)).toEqual([0, 0, 28, 28]);
  });
});
