import { describe, expect, it } from 'vitest';
import { acceptCandidate, addImage, addObjects } from './documentOps';
import { commit, createHistory, redo, undo } from './history';
import { emptyDocument, type StudioDocument } from './model';
import { type Annotation } from '../../annotations/annotation';
import { beginRefine } from './objectOps';
import { acceptAllAtLeast, countsLine, countsParts, proposalsAtLeast, reviewCounts, reviewQueue, setReviewState, stepQueue } from './reviewOps';
import { proposedBy, reviewStateOf } from '../../annotations/review';

const square = (x: number): Annotation['polygons'] => [{ outer: [[x, 0], [x + 10, 0], [x + 10, 10], [x, 10]], holes: [] }];

function object(id: string, confidence: number, review?: Annotation['review']): Omit<Annotation, 'color'> {
  return { id, label: id, classId: null, confidence, visible: true, polygons: square(confidence * 50), source: 'text', ...(review ? { review } : {}) };
}

/** Two images: a has a hand-made object and two proposals, b one proposal. */
function session(): StudioDocument {
  let doc = addImage(addImage(emptyDocument(), { id: 'a', name: 'a.png', width: 100, height: 100 }), { id: 'b', name: 'b.png', width: 100, height: 100 });
  doc = addObjects(doc, 'a', [object('hand', 0.99), object('p1', 0.9, proposedBy('text-prompt')), object('p2', 0.4, proposedBy('text-prompt'))]);
  doc = addObjects(doc, 'b', [object('p3', 0.85, proposedBy('find-similar'))]);
  return { ...doc, activeImageId: 'a' };
}

const ids = (items: ReturnType<typeof reviewQueue>) => items.map((i) => i.objectId);

describe('review state', () => {
  it('an object without review is accepted; proposals are counted apart, rejected ones not at all', () => {
    const doc = setReviewState(session(), 'a', ['p2'], 'rejected');
    expect(reviewStateOf(doc.objects.a[0])).toBe('accepted');
    const counts = reviewCounts([...doc.objects.a, ...doc.objects.b]);
    expect(counts).toEqual({ accepted: 1, unreviewed: 2, rejected: 1 });
    expect(countsLine(counts)).toBe('1 object · 2 to review');
    expect(countsLine({ accepted: 12, unreviewed: 0, rejected: 3 })).toBe('12 objects');
    expect(countsParts(counts)).toEqual(['1 object', '2 to review']);
    expect(countsParts({ accepted: 0, unreviewed: 0, rejected: 3 })).toEqual(['0 objects']);
  });

  it('accepting and rejecting keep where the proposal came from, are undoable, and a repeat is no change', () => {
    const before = session();
    let history = createHistory(before);
    history = commit(history, setReviewState(history.present, 'a', ['p1'], 'accepted'), 'accept proposal');
    expect(history.present.objects.a[1].review).toEqual({ state: 'accepted', source: 'text-prompt' });
    expect(setReviewState(history.present, 'a', ['p1'], 'accepted')).toBe(history.present);
    history = commit(history, setReviewState(history.present, 'b', ['p3'], 'rejected'), 'reject proposal');
    expect(history.present.objects.b[0].review).toEqual({ state: 'rejected', source: 'find-similar' });
    history = undo(undo(history));
    expect(history.present).toBe(before);
    expect(redo(history).present.objects.a[1].review?.state).toBe('accepted');
  });

  it('accepts every proposal of the session at or above a confidence, in one change', () => {
    const doc = session();
    expect(ids(proposalsAtLeast(doc, 0.85))).toEqual(['p1', 'p3']);
    const next = acceptAllAtLeast(doc, 0.85);
    expect(ids(reviewQueue(next))).toEqual(['p2']);
    expect(next.objects.b[0].review?.state).toBe('accepted');
    expect(acceptAllAtLeast(doc, 0.95)).toBe(doc);
  });

  it('a proposal refined by a click and accepted is accepted with its new shape', () => {
    let doc = beginRefine(session(), 'a', 'p1', 7);
    expect(doc.prompts.a.targetObjectId).toBe('p1');
    doc = acceptCandidate(doc, 'a', 'unused', 8);
    expect(doc.objects.a.map((o) => o.id)).toEqual(['hand', 'p1', 'p2']);
    expect(doc.objects.a[1].review).toEqual({ state: 'accepted', source: 'text-prompt' });
  });
});

describe('review queue', () => {
  it('walks the proposals in session order from the active image, both ways, going round', () => {
    const doc = session();
    expect(ids(reviewQueue(doc))).toEqual(['p1', 'p2', 'p3']);
    const first = stepQueue(doc, null, 1);
    expect(first).toEqual({ imageId: 'a', objectId: 'p1' });
    expect(stepQueue(doc, first, 1)?.objectId).toBe('p2');
    expect(stepQueue(doc, { imageId: 'a', objectId: 'p2' }, 1)).toEqual({ imageId: 'b', objectId: 'p3' });
    expect(stepQueue(doc, { imageId: 'b', objectId: 'p3' }, 1)?.objectId).toBe('p1');
    expect(stepQueue(doc, first, -1)?.objectId).toBe('p3');
    // Starting on image b: its proposal first.
    expect(stepQueue({ ...doc, activeImageId: 'b' }, null, 1)?.objectId).toBe('p3');
  });

  it('after a proposal is reviewed, next is the one that followed it; nothing left: null', () => {
    let doc = session();
    const current = { imageId: 'a', objectId: 'p1' };
    doc = setReviewState(doc, 'a', ['p1'], 'accepted');
    expect(stepQueue(doc, current, 1)?.objectId).toBe('p2');
    expect(stepQueue(doc, current, -1)?.objectId).toBe('p3');
    doc = setReviewState(setReviewState(doc, 'a', ['p2'], 'rejected'), 'b', ['p3'], 'accepted');
    expect(stepQueue(doc, current, 1)).toBeNull();
    expect(stepQueue(emptyDocument(), null, 1)).toBeNull();
  });

  it('a reviewed object that was deleted meanwhile: the queue starts again at the active image', () => {
    const doc = session();
    expect(stepQueue(doc, { imageId: 'a', objectId: 'gone' }, 1)?.objectId).toBe('p1');
  });
});
