import { describe, expect, it } from 'vitest';
import type { Annotation } from './annotation';
import { maskToRuns, runsToMask } from './rle';
import { AnnotationObject, canonicalRuns, canonicalWire, fromWire, toWire } from './wire';

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

describe('the canonical form of a wire object', () => {
  const classes = [{ id: 1, name: 'cup', color: '#ff5c5c' }];
  const mask = { width: 4, height: 2, data: new Uint8Array([0, 1, 1, 0, 0, 1, 1, 0]) };
  const cup: Annotation = {
    id: 'obj-1',
    label: 'cup',
    classId: 1,
    confidence: 0.9,
    color: '#ff5c5c',
    visible: true,
    polygons: [{ outer: [[1, 0], [3, 0], [3, 2], [1, 2]], holes: [] }],
    mask,
    outlineTolerance: 0.5,
    source: 'text',
    review: { state: 'unreviewed', source: 'text-prompt' },
  };
  /** The same cup as a server gives it back: its own fields, keys in another order, the mask's runs with empty runs, no name or colour. */
  const stored = AnnotationObject.parse({
    changedAt: '2026-11-28T12:00:00Z',
    changedBy: 'ann@example.com',
    review: 'unreviewed',
    proposedBy: 'text-prompt',
    mask: { width: 4, height: 2, counts: [1, 2, 0, 0, 2, 2, 1, 0] },
    kind: 'mask',
    polygons: [{ outer: [[1, 0], [3, 0], [3, 2], [1, 2]], holes: [] }],
    id: 'obj-1',
    classId: 1,
    confidence: 0.9,
    outlineTolerance: 0.5,
    source: 'text',
  });
  const canonical = (o: AnnotationObject, index = 0) => JSON.stringify(canonicalWire(o, classes, index));

  it('makes a stored object and the written one equal when they are the same object', () => {
    const written = toWire(cup);
    expect(canonical(stored)).toBe(canonical(written));
    expect(canonical(written)).toBe(JSON.stringify(written));
  });

  it('tells them apart when they differ in anything the studio keeps', () => {
    const written = toWire(cup);
    const changes: Array<Partial<AnnotationObject>> = [
      { polygons: [{ outer: [[1, 0], [3, 0], [3, 2], [1, 1]], holes: [] }] },
      { classId: null },
      { confidence: 0.8 },
      { visible: false },
      { review: 'accepted' },
      { proposedBy: undefined },
      { mask: { width: 4, height: 2, counts: [1, 2, 2, 3] } },
      { outlineTolerance: 1 },
      { source: 'local' },
    ];
    for (const change of changes) expect(canonical({ ...stored, ...change }), JSON.stringify(change)).not.toBe(canonical(written));
  });

  it('is the round trip through memory that it replaces, for masks, boxes, tags, labelled or not', () => {
    const objects = [
      stored,
      AnnotationObject.parse({ id: 'b', kind: 'box', box: [1, 2, 3, 4], classId: 1, polygons: [], label: 'mug', color: '#000000' }),
      AnnotationObject.parse({ id: 't', kind: 'tag', classId: 1, polygons: [] }),
      AnnotationObject.parse({ id: 'u', classId: null, polygons: [], label: 'walker', outlineTolerance: 2 }),
      AnnotationObject.parse({ id: 'v', classId: 7, polygons: [], mask: { width: 2, height: 1, counts: [0, 0, 0, 2] } }),
    ];
    objects.forEach((object, i) => expect(canonical(object, i), object.id).toBe(JSON.stringify(toWire(fromWire(object, classes, i)))));
  });

  it('writes run lengths as maskToRuns does: the first run kept even when empty, no other empty run', () => {
    expect(canonicalRuns([0, 2, 2])).toEqual([0, 2, 2]);
    expect(canonicalRuns([1, 2, 0, 0, 2, 2, 1, 0])).toEqual([1, 2, 2, 2, 1]);
    expect(canonicalRuns([0, 0, 4])).toEqual([4]);
    expect(canonicalRuns([3, 0])).toEqual([3]);
  });
});
