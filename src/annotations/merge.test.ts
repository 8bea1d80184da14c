import { describe, expect, it } from 'vitest';
import type { AnnotationObject } from './wire';
import { mergeObjects } from './merge';

const square = (id: string, x: number, extra: Partial<AnnotationObject> = {}): AnnotationObject => ({
  id,
  classId: 1,
  polygons: [{ outer: [[x, 0], [x + 10, 0], [x + 10, 10], [x, 10]], holes: [] }],
  source: 'local',
  confidence: 1,
  visible: true,
  review: 'unreviewed',
  ...extra,
});

describe('merging two edits of one image per object', () => {
  const base = [square('a', 0), square('b', 20), square('c', 40)];

  it('takes each side’s change of a different object, additions and deletions included', () => {
    const mine = [square('a', 5), square('b', 20), square('c', 40), square('mine-new', 60)];
    const theirs = [square('a', 0), square('b', 20, { review: 'accepted', changedBy: 'r@x', changedAt: 't' }), square('theirs-new', 80)];
    expect(mergeObjects(base, mine, theirs)).toEqual({
      objects: [square('a', 5), square('b', 20, { review: 'accepted', changedBy: 'r@x', changedAt: 't' }), square('theirs-new', 80), square('mine-new', 60)],
      conflicts: [],
    });
  });

  it('keeps both versions of an object both changed differently, and says which', () => {
    const result = mergeObjects(base, [square('a', 5), ...base.slice(1)], [square('a', 0, { classId: 2 }), ...base.slice(1)]);
    expect(result.conflicts).toEqual(['a']);
    expect(result.objects.map((o) => o.id)).toEqual(['a', 'a~mine', 'b', 'c']);
    expect(result.objects[0].classId).toBe(2);
    expect(result.objects[1].polygons).toEqual(square('a', 5).polygons);
  });

  it('keeps one copy of the same change, and a change the other side deleted', () => {
    const changed = square('a', 7);
    expect(mergeObjects(base, [changed, square('b', 21)], [changed, square('c', 40)])).toEqual({ objects: [changed, square('b', 21)], conflicts: [] });
  });
});
