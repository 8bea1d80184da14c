import { describe, expect, it } from 'vitest';
import { nextClick, type GroundTruth } from './clicker';

/** Builds ground truth from rows of characters: '#' object, '.' background, '?' ignore. */
function truthFrom(rows: string[]): GroundTruth {
  const width = rows[0].length;
  const labels = new Int8Array(width * rows.length);
  rows.forEach((row, y) => [...row].forEach((c, x) => (labels[y * width + x] = c === '#' ? 1 : c === '?' ? -1 : 0)));
  return { width, height: rows.length, labels };
}

function maskFrom(rows: string[]): Uint8Array {
  return Uint8Array.from(rows.join('').split('').map((c) => (c === '1' ? 1 : 0)));
}

describe('nextClick', () => {
  it('puts the first click at the object pixel farthest from its boundary', () => {
    const truth = truthFrom(['........', '.#####..', '.#####..', '.#####..', '.#####..', '.#####..', '........']);
    expect(nextClick(truth, new Uint8Array(8 * 7), [])).toEqual({ x: 3, y: 3, positive: true });
  });

  it('breaks ties by the first pixel in row-major order', () => {
    // A 4x4 object: the four central pixels are equally far from the boundary.
    const truth = truthFrom(['......', '.####.', '.####.', '.####.', '.####.', '......']);
    expect(nextClick(truth, new Uint8Array(36), [])).toEqual({ x: 2, y: 2, positive: true });
  });

  it('counts the image border as boundary (mask padded with zeros)', () => {
    // The whole image is object: without padding there would be no boundary at all.
    const truth = truthFrom(['#####', '#####', '#####', '#####', '#####']);
    expect(nextClick(truth, new Uint8Array(25), [])).toEqual({ x: 2, y: 2, positive: true });
    // An object touching the left border: its farthest pixel is pulled away from that border.
    const left = truthFrom(['###....', '###....', '###....']);
    expect(nextClick(left, new Uint8Array(21), [])).toEqual({ x: 1, y: 1, positive: true });
  });

  it('clicks negative when the largest false-positive region is deeper', () => {
    const truth = truthFrom(['##.......', '##.......', '.........', '.........', '.........']);
    const prediction = maskFrom(['111111111', '111111111', '111111111', '111111111', '111111111']);
    const click = nextClick(truth, prediction, []);
    expect(click.positive).toBe(false);
    // (4,2) and (5,2) are both 3 px from the padded top/bottom border; row-major order picks (4,2).
    expect(click).toEqual({ x: 4, y: 2, positive: false });
  });

  it('clicks negative on equal depths (positive only if strictly greater)', () => {
    const truth = truthFrom(['.......', '.#...#.', '.......']);
    // The right object pixel is predicted; a single FP pixel and a single FN pixel, both at distance 1.
    const prediction = maskFrom(['0000000', '0000011', '0000000']);
    expect(nextClick(truth, prediction, [])).toEqual({ x: 6, y: 1, positive: false });
  });

  it('never clicks an already clicked pixel again', () => {
    const truth = truthFrom(['.....', '.###.', '.###.', '.###.', '.....']);
    const first = nextClick(truth, new Uint8Array(25), []);
    expect(first).toEqual({ x: 2, y: 2, positive: true });
    const second = nextClick(truth, new Uint8Array(25), [first]);
    expect(second).toEqual({ x: 1, y: 1, positive: true });
  });

  it('ignore pixels are never errors but still bound the error regions', () => {
    // Predicting the ignore band is not an error; the band still bounds the object's distance map.
    const truth = truthFrom(['???????', '?#####?', '?#####?', '?#####?', '???????']);
    const prediction = maskFrom(['1111111', '1000001', '1000001', '1000001', '1111111']);
    // Row 2, columns 2..4 are all 2 px from the band; the first of them wins.
    expect(nextClick(truth, prediction, [])).toEqual({ x: 2, y: 2, positive: true });
  });
});
