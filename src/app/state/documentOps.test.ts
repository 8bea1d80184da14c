import { describe, expect, it } from 'vitest';
import { commit, createHistory, redo, settle, undo } from './history';
import { acceptCandidate, addImage, addPoint, applyCandidates, deleteObject, markPending, removeImage, setBox, updateObject } from './documentOps';
import { emptyDocument, type Candidate } from './model';

const image = { id: 'img', name: 'coffee.png', width: 600, height: 400 };
const candidate = (score: number): Candidate => ({ polygons: [{ outer: [[0, 0], [10, 0], [10, 10]], holes: [] }], score, area: 50 });

describe('document operations', () => {
  it('adds an image with its own objects and prompt', () => {
    const doc = addImage(emptyDocument(), image);
    expect(doc.activeImageId).toBe('img');
    expect(doc.objects.img).toEqual([]);
    expect(doc.prompts.img.points).toEqual([]);
    expect(removeImage(doc, 'img').activeImageId).toBeNull();
  });

  it('adds an image behind the one on screen when asked not to show it (a batch stays on its first image)', () => {
    const first = addImage(emptyDocument(), image, { show: false });
    expect(first.activeImageId).toBe('img'); // nothing was on screen
    const second = addImage(first, { ...image, id: 'img2', name: 'b.png' }, { show: false });
    expect(second.images.map((i) => i.id)).toEqual(['img', 'img2']);
    expect(second.activeImageId).toBe('img');
    expect(addImage(second, { ...image, id: 'img3', name: 'c.png' }).activeImageId).toBe('img3');
  });

  it('applies a prediction only to the revision it was asked for and selects the engine’s answer, listed first, whatever the scores', () => {
    let doc = addPoint(addImage(emptyDocument(), image), 'img', { x: 5, y: 5, positive: true }, 1);
    doc = markPending(doc, 'img', 1, 'pending');
    expect(applyCandidates(doc, 'img', 99, [candidate(0.9)])).toBe(doc);
    doc = applyCandidates(doc, 'img', 1, [candidate(0.5), candidate(0.9), candidate(0.7)]);
    expect(doc.prompts.img.status).toBe('done');
    expect(doc.prompts.img.selected).toBe(0);
  });

  it('a new click or box clears the old candidates', () => {
    let doc = addPoint(addImage(emptyDocument(), image), 'img', { x: 5, y: 5 }, 1);
    doc = applyCandidates(doc, 'img', 1, [candidate(0.9)]);
    doc = setBox(doc, 'img', { x: 50, y: 50, width: 20, height: 20 }, 2);
    expect(doc.prompts.img.candidates).toEqual([]);
    expect(doc.prompts.img.points).toHaveLength(1);
    expect(doc.prompts.img.box).toEqual({ x: 50, y: 50, width: 20, height: 20 });
  });

  it('accepts, renames, hides and deletes objects', () => {
    let doc = addPoint(addImage(emptyDocument(), image), 'img', { x: 5, y: 5 }, 1);
    doc = applyCandidates(doc, 'img', 1, [candidate(0.8)]);
    doc = acceptCandidate(doc, 'img', 'obj-1', 2);
    expect(doc.objects.img).toHaveLength(1);
    expect(doc.objects.img[0]).toMatchObject({ label: 'object 1', confidence: 0.8, visible: true, source: 'local' });
    expect(doc.prompts.img.points).toEqual([]);
    doc = updateObject(doc, 'img', 'obj-1', { label: 'cup', visible: false });
    expect(doc.objects.img[0]).toMatchObject({ label: 'cup', visible: false });
    expect(updateObject(doc, 'img', 'obj-1', { label: 'cup' })).toBe(doc);
    expect(deleteObject(doc, 'img', 'obj-1').objects.img).toEqual([]);
  });

  it('undo and redo walk through clicks and object changes; late results land where they belong', () => {
    let h = createHistory(addImage(emptyDocument(), image));
    h = commit(h, addPoint(h.present, 'img', { x: 5, y: 5 }, 1), 'add point');
    h = commit(h, addPoint(h.present, 'img', { x: 9, y: 9, positive: false }, 2), 'add point');
    h = undo(h);
    expect(h.present.prompts.img.points).toHaveLength(1);
    h = settle(h, (d) => applyCandidates(d, 'img', 2, [candidate(0.6)]));
    expect(h.present.prompts.img.candidates).toEqual([]);
    h = redo(h);
    expect(h.present.prompts.img.points).toHaveLength(2);
    expect(h.present.prompts.img.candidates).toHaveLength(1);
  });
});
