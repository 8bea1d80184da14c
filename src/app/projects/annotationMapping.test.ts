import { describe, expect, it } from 'vitest';
import type { SegObject } from '../state/model';
import { fromAnnotationObject, maskToRuns, runsToMask, toAnnotationObject } from './annotationMapping';

describe('studio objects ↔ project annotations', () => {
  it('keeps a mask bit for bit through run lengths, including one that starts set', () => {
    const mask = { width: 5, height: 3, data: new Uint8Array([1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1]) };
    const runs = maskToRuns(mask);
    expect(runs).toEqual([0, 2, 2, 1, 5, 5]);
    expect(Array.from(runsToMask(5, 3, runs).data)).toEqual(Array.from(mask.data));
    expect(maskToRuns({ width: 2, height: 1, data: new Uint8Array(2) })).toEqual([2]);
  });

  it('gives back the object the studio exports: id, class, outlines, mask, visibility', () => {
    const object: SegObject = {
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
    const back = fromAnnotationObject(toAnnotationObject(object), [{ id: 2, name: 'cup', color: '#3fa7ff' }], 0);
    expect(back).toEqual(object);
  });

  it('keeps an unlabelled object its own name, colour, origin (a text prompt found it) and review', () => {
    const object: SegObject = {
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
    expect(fromAnnotationObject(toAnnotationObject(object), [], 3)).toEqual(object);
  });

  it('a proposal is unreviewed on the server with what proposed it; a hand-made object is accepted', () => {
    const base: SegObject = { id: 'o', label: 'cat', classId: null, confidence: 0.9, color: '#a0e060', visible: true, polygons: [], source: 'local' };
    const proposal: SegObject = { ...base, review: { state: 'proposed', source: 'segment-everything' } };
    expect(toAnnotationObject(proposal)).toMatchObject({ review: 'unreviewed', proposedBy: 'segment-everything' });
    expect(fromAnnotationObject(toAnnotationObject(proposal), [], 0).review).toEqual(proposal.review);
    expect(toAnnotationObject(base)).toMatchObject({ review: 'accepted' });
    expect(toAnnotationObject(base)).not.toHaveProperty('proposedBy');
    expect(fromAnnotationObject(toAnnotationObject(base), [], 0)).not.toHaveProperty('review');
  });
});
