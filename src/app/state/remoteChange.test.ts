import { beforeEach, describe, expect, it } from 'vitest';
import type { Annotation } from '../../annotations/annotation';
import { emptyDocument } from './model';
import { currentDocument, studio, useStudio } from './studioStore';

const square = (id: string, extra: Partial<Annotation> = {}): Annotation => ({
  id,
  label: 'cat',
  classId: null,
  confidence: 1,
  color: '#ff5c5c',
  visible: true,
  source: 'local',
  polygons: [{ outer: [[1, 1], [20, 1], [20, 20], [1, 20]], holes: [] }],
  ...extra,
});
const image = { id: 'img', name: 'chelsea.png', width: 451, height: 300 };
const proposal = square('proposal', { review: { state: 'unreviewed', source: 'segment-everything' } });
const theirs = square('theirs');

/** What the objects of the image say, shortly: id, label and review. */
const objects = () => (currentDocument().objects.img ?? []).map((o) => `${o.id}:${o.label}:${o.review?.state ?? 'accepted'}`);

describe("another member's changes in the studio's history", () => {
  beforeEach(() => {
    useStudio.getState().load({ ...emptyDocument(), images: [image], activeImageId: 'img', objects: { img: [proposal, theirs] }, prompts: {} });
  });

  it('undo takes back only my own step, against the state that holds the remote change', () => {
    studio.setReview('img', 'proposal', { state: 'accepted', source: 'segment-everything' });
    // Bob renames his object meanwhile; the sync lands his change in my document.
    const present = currentDocument().objects.img;
    studio.mergeRemoteObjects('img', present.map((o) => (o.id === 'theirs' ? { ...o, label: 'dog' } : o)));
    expect(objects()).toEqual(['proposal:cat:accepted', 'theirs:dog:accepted']);

    studio.undo();
    expect(objects()).toEqual(['proposal:cat:unreviewed', 'theirs:dog:accepted']);
    // The remote change was no step of mine: nothing more to undo.
    expect(useStudio.getState().history.past).toHaveLength(0);
    studio.redo();
    expect(objects()).toEqual(['proposal:cat:accepted', 'theirs:dog:accepted']);
  });

  it("an object someone else added or deleted stays so through my undo and redo; an object he changed after my step keeps his change", () => {
    studio.deleteObject('img', 'proposal');
    const added = square('added', { label: 'bird' });
    studio.mergeRemoteObjects('img', [{ ...theirs, label: 'dog' }, added]);
    studio.undo();
    expect(objects()).toEqual(['proposal:cat:unreviewed', 'theirs:dog:accepted', 'added:bird:accepted']);

    studio.setReview('img', 'proposal', { state: 'rejected', source: 'segment-everything' });
    // He accepts the same proposal after my reject reached him, and deletes his bird.
    studio.mergeRemoteObjects('img', [{ ...proposal, review: { state: 'accepted', source: 'segment-everything' } }, { ...theirs, label: 'dog' }]);
    studio.undo();
    expect(objects()).toEqual(['proposal:cat:accepted', 'theirs:dog:accepted']);
  });

  it('photos another member adds or removes are no undo steps', () => {
    studio.addRemoteImage({ id: 'coffee', name: 'coffee.png', width: 600, height: 400 });
    expect(currentDocument().images.map((i) => i.id)).toEqual(['img', 'coffee']);
    expect(currentDocument().activeImageId).toBe('img');
    studio.setActiveImage('coffee');
    studio.removeRemoteImage('img');
    studio.undo();
    expect(currentDocument().images.map((i) => i.id)).toEqual(['coffee']);
    expect(currentDocument().activeImageId).toBe('coffee');
  });
});
