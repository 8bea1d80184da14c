import { describe, expect, it } from 'vitest';
import { countVertices, polygonsToSvgPath } from './svgPath';

describe('SVG path', () => {
  it('writes one closed subpath per ring, holes included', () => {
    const path = polygonsToSvgPath([{ outer: [[0, 0], [10, 0], [10, 10]], holes: [[[2, 2], [3, 2], [3, 3]]] }]);
    expect(path).toBe('M0 0L10 0L10 10ZM2 2L3 2L3 3Z');
    expect(countVertices([{ outer: [[0, 0], [10, 0], [10, 10]], holes: [[[2, 2], [3, 2], [3, 3]]] }])).toBe(6);
  });

  it('skips degenerate rings', () => {
    expect(polygonsToSvgPath([{ outer: [[0, 0], [1, 1]], holes: [] }])).toBe('');
  });
});
