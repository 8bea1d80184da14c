import { describe, expect, it } from 'vitest';
import type { PolygonWithHoles } from '../../engine/types';
import { deleteVertex, insertVertex, moveVertex, nearestEdge, vertexAt } from './vertexEdit';

const square: PolygonWithHoles[] = [
  {
    outer: [
      [0, 0],
      [10, 0],
      [10, 10],
      [0, 10],
    ],
    holes: [
      [
        [4, 4],
        [6, 4],
        [6, 6],
      ],
    ],
  },
];

describe('vertex editing', () => {
  it('moves one vertex of the outer ring or of a hole', () => {
    expect(vertexAt(moveVertex(square, { polygon: 0, ring: 0, vertex: 2 }, [12, 14]), { polygon: 0, ring: 0, vertex: 2 })).toEqual([12, 14]);
    expect(moveVertex(square, { polygon: 0, ring: 1, vertex: 0 }, [3, 3])[0].holes[0][0]).toEqual([3, 3]);
    expect(square[0].outer[2]).toEqual([10, 10]);
  });

  it('inserts on the nearest edge and deletes down to three vertices', () => {
    const edge = nearestEdge(square, [5, 0.5], 2)!;
    expect(edge.ref).toEqual({ polygon: 0, ring: 0, vertex: 0 });
    expect(edge.foot).toEqual([5, 0]);
    const inserted = insertVertex(square, edge.ref, edge.foot);
    expect(inserted[0].outer).toHaveLength(5);
    expect(inserted[0].outer[1]).toEqual([5, 0]);
    expect(deleteVertex(inserted, { polygon: 0, ring: 0, vertex: 1 })[0].outer).toEqual(square[0].outer);
    expect(deleteVertex(square, { polygon: 0, ring: 1, vertex: 0 })).toBe(square);
    expect(nearestEdge(square, [50, 50], 2)).toBeNull();
  });
});
