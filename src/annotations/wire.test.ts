import { describe, expect, it } from 'vitest';
import type { Annotation } from './annotation';
import { maskToRuns, runsToMask } from './rle';
import { AnnotationObject, fromWire, toWire } from './wire';

describe('annotations ↔ the wire', () => {
  it('keeps a mask bit for bit through row-major run lengths, including one that starts set', () => {
    const mask = { width: 5, height: 3, data: new Uint8Array([1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1]) };
    const runs = maskToRuns(mask, 'rows');
    expect(runs).toEqual([0, 2, 2, 1, 5, 5]);
    expect(Array.from(runsToMask(runs, 3, 5, 'rows').data)).toEqual(Array.from(mask.data));
    expect(maskToRuns({ width: 2, height: 1, data: new Uint8Array(2) }, 'rows')).toEqual([2]);
  });

  it('reads the same mask column-major (COCO) with other runs, and back', () => {
    const mask = { width: 3, height: 2, data: new Uint8Array([1, 0, 0, 1, 1, 0]) };
    expect(maskToRuns(mask, 'columns')).toEqual([0, 2, 1, 1, 2]);
    expect(Array.from(runsToMask([0, 2, 1, 1, 2], 2, 3, 'columns').data)).toEqual(Array.from(mask.data));
    expect(() => runsToMask([1, 2], 2, 3, 'rows')).toThrow(/cover 3 pixels/);
  });

  it('carries a box and a tag with their kind and no polygons, and refuses a box without its rectangle', () => {
    const base = { label: 'raccoon', classId: 1, confidence: 1, color: '#ff5c5c', visible: true, source: 'local' as const };
    const box: Annotation = { ...base, id: 'b', kind: 'box', box: [10, 20, 30, 40], polygons: [] };
    const tag: Annotation = { ...base, id: 't', kind: 'tag', polygons: [] };
    const classes = [{ id: 1, name: 'raccoon', color: '#ff5c5c' }];
    expect(toWire(box)).toMatchObject({ kind: 'box', box: [10, 20, 30, 40], polygons: [] });
    expect(fromWire(AnnotationObject.parse(toWire(box)), classes, 0)).toEqual(box);
    expect(fromWire(AnnotationObject.parse(toWire(tag)), classes, 0)).toEqual(tag);
    expect(AnnotationObject.safeParse({ id: 'x', kind: 'box', classId: 1, polygons: [] }).success).toBe(false);
    expect(AnnotationObject.safeParse({ id: 'x', classId: 1, polygons: [], box: [0, 0, 1, 1] }).success).toBe(false);
    // Objects without `kind` (old clients, stored projects) stay masks.
    expect(fromWire(AnnotationObject.parse({ id: 'm', classId: 1, polygons: [] }), classes, 0)).not.toHaveProperty('kind');
  });

  it('gives back the object the studio exports: id, class, outlines, mask, visibility', () => {
    const object: Annotation = {
      id: 'obj-1',
      label: 'cup',
      classId: 2,
      confidence: 0.87,
      color: '#3fa7ff',
      visible: false,
      polygons: [{ outer: [[1, 1], [3, 1], [3, 2]], holes: [] }],
      mask: { width: 4, height: 3, data: new Uint8Array([0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0]) },
      outlineTolerance: 1.5,
      source: 'local',
    };
    const back = fromWire(toWire(object), [{ id: 2, name: 'cup', color: '#3fa7ff' }], 0);
    expect(back).toEqual(object);
  });

  it('keeps an unlabelled object its own name, colour, origin (a text prompt found it) and review', () => {
    const object: Annotation = {
      id: 'obj-2',
      label: 'red mug',
      classId: null,
      confidence: 0.6,
      color: '#a0e060',
      visible: true,
      polygons: [{ outer: [[0, 0], [2, 0], [2, 2]], holes: [] }],
      source: 'text',
      review: { state: 'rejected', source: 'text-prompt' },
    };
    expect(fromWire(toWire(object), [], 3)).toEqual(object);
  });

  it('a proposal is unreviewed on the server with what proposed it; a hand-made object is accepted', () => {
    const base: Annotation = { id: 'o', label: 'cat', classId: null, confidence: 0.9, color: '#a0e060', visible: true, polygons: [], source: 'local' };
    const proposal: Annotation = { ...base, review: { state: 'unreviewed', source: 'segment-everything' } };
    expect(toWire(proposal)).toMatchObject({ review: 'unreviewed', proposedBy: 'segment-everything' });
    expect(fromWire(toWire(proposal), [], 0).review).toEqual(proposal.review);
    expect(toWire(base)).toMatchObject({ review: 'accepted' });
    expect(toWire(base)).not.toHaveProperty('proposedBy');
    expect(fromWire(toWire(base), [], 0)).not.toHaveProperty('review');
  });
});
