import { describe, expect, it } from 'vitest';
import type { Annotation } from '../../annotations/annotation';
import { proposedBy } from '../../annotations/review';
import { emptyDocument, type StudioDocument } from '../state/model';
import { classNamed, labelledRegions, pendingLessons, teachingSignature } from './lessons';
import { reclassWaiting } from './reclassWaiting';

const RACCOON = { id: 3, name: ' Raccoon ', color: '#f00' };
const SIGN = { id: 4, name: 'sign', color: '#0f0' };
const image = { id: 'a', name: 'a.jpg', width: 10, height: 10 };
const object = (id: string, change: Partial<Annotation> = {}): Annotation => ({
  id,
  label: 'x',
  classId: RACCOON.id,
  confidence: 1,
  color: '#fff',
  visible: true,
  source: 'local',
  polygons: [{ outer: [[1, 1], [6, 1], [6, 6], [1, 6]], holes: [] }],
  ...change,
});
const doc = (objects: Annotation[]): StudioDocument => ({ ...emptyDocument(), images: [image], activeImageId: 'a', classes: [RACCOON, SIGN], objects: { a: objects } });

describe('lessons of the document', () => {
  it('made or accepted with a class: a positive of the class by name; rejected: background; waiting, unlabelled or a tag: nothing', () => {
    const classes = [RACCOON, SIGN];
    expect(teachingSignature(object('1'), classes)).toBe('+Raccoon');
    expect(teachingSignature(object('2', { review: { state: 'accepted', source: 'segment-everything' } }), classes)).toBe('+Raccoon');
    expect(teachingSignature(object('3', { review: { state: 'rejected', source: 'learned' } }), classes)).toBe('-');
    expect(teachingSignature(object('4', { review: proposedBy('learned') }), classes)).toBeUndefined();
    expect(teachingSignature(object('5', { classId: null }), classes)).toBeUndefined();
    expect(teachingSignature(object('6', { kind: 'tag', polygons: [] }), classes)).toBeUndefined();
  });

  it('an object is taught once per lesson: again only when re-classed or rejected', () => {
    const taught = new Map([['1', '+Raccoon']]);
    expect(pendingLessons(doc([object('1')]), taught)).toEqual([]);
    const reclassed = pendingLessons(doc([object('1', { classId: SIGN.id })]), taught);
    expect(reclassed.map((l) => [l.object.id, l.classId])).toEqual([['1', 'sign']]);
    const rejected = pendingLessons(doc([object('1', { review: { state: 'rejected' } })]), taught);
    expect(rejected.map((l) => [l.object.id, l.classId])).toEqual([['1', null]]);
  });

  it('a labelled photo’s regions: masks as pixels, drawn boxes as boxes', () => {
    const regions = labelledRegions(doc([object('1'), object('2', { kind: 'box', box: [2, 3, 4, 5], polygons: [], classId: SIGN.id }), object('3', { review: proposedBy('text-prompt') })]), image);
    expect(regions).toHaveLength(2);
    expect(regions[0].classId).toBe('Raccoon');
    expect(regions[0].mask!.data.reduce((s, v) => s + v, 0)).toBe(25);
    expect(regions[1]).toEqual({ classId: 'sign', box: { x0: 2, y0: 3, x1: 6, y1: 8 } });
    expect(classNamed([RACCOON, SIGN], 'raccoon')).toBe(RACCOON);
  });

  it('a waiting proposal follows the model; one someone decided keeps its class', () => {
    const waiting = object('1', { review: proposedBy('learned'), confidence: 0.4 });
    const change = { classId: SIGN.id, label: 'sign', confidence: 0.9 };
    expect(reclassWaiting(doc([waiting]), 'a', '1', change).objects.a[0]).toMatchObject(change);
    const decided = doc([{ ...waiting, review: { state: 'accepted', source: 'learned' } }]);
    expect(reclassWaiting(decided, 'a', '1', change)).toBe(decided);
  });
});
