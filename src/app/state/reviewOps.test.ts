import { describe, expect, it } from 'vitest';
import { acceptCandidate, addImage, addObjects } from './documentOps';
import { commit, createHistory, redo, undo } from './history';
import { emptyDocument, type StudioDocument } from './model';
import { type Annotation } from '../../annotations/annotation';
import { beginRefine } from './objectOps';
import { acceptAllAtLeast, countsLine, countsParts, proposalsAtLeast, reviewCounts, reviewQueue, setReviewState, stepQueue, WHOLE_QUEUE, type QueueView } from './reviewOps';
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

describe('review queue filtered and ordered', () => {
  /** Image a: hand (0.99, no review), p1 cat 0.9, p2 dog 0.4, p4 unlabelled 0.55; image b: p3 cat 0.85, p5 dog 0.1. */
  function classed(): StudioDocument {
    let doc = session();
    doc = addObjects(doc, 'a', [object('p4', 0.55, proposedBy('segment-everything'))]);
    doc = addObjects(doc, 'b', [object('p5', 0.1, proposedBy('segment-everything'))]);
    const classOf: Record<string, number> = { p1: 1, p2: 2, p3: 1, p5: 2 };
    const objects = Object.fromEntries(Object.entries(doc.objects).map(([image, list]) => [image, list.map((o) => (o.id in classOf ? { ...o, classId: classOf[o.id] } : o))]));
    return { ...doc, objects };
  }
  const view = (change: Partial<QueueView>): QueueView => ({ ...WHOLE_QUEUE, ...change });

  it('filters by class, by no class and by a confidence range (both ends included)', () => {
    const doc = classed();
    expect(ids(reviewQueue(doc))).toEqual(['p1', 'p2', 'p4', 'p3', 'p5']);
    expect(ids(reviewQueue(doc, view({ classFilter: 1 })))).toEqual(['p1', 'p3']);
    expect(ids(reviewQueue(doc, view({ classFilter: 'unlabelled' })))).toEqual(['p4']);
    expect(ids(reviewQueue(doc, view({ minConfidence: 0.4, maxConfidence: 0.85 })))).toEqual(['p2', 'p4', 'p3']);
    expect(ids(reviewQueue(doc, view({ classFilter: 2, minConfidence: 0.2 })))).toEqual(['p2']);
  });

  it('"teaches the most" puts the least certain first (nearest ½), session order breaking ties', () => {
    const doc = classed();
    expect(ids(reviewQueue(doc, view({ order: 'uncertain' })))).toEqual(['p4', 'p2', 'p3', 'p1', 'p5']);
  });

  it('steps within the view; a decided proposal keeps its place, and the ordered queue starts at its head', () => {
    let doc = classed();
    const uncertain = view({ order: 'uncertain' });
    expect(stepQueue(doc, null, 1, uncertain)?.objectId).toBe('p4');
    expect(stepQueue(doc, null, -1, uncertain)?.objectId).toBe('p5');
    expect(stepQueue(doc, { imageId: 'b', objectId: 'p3' }, 1, uncertain)?.objectId).toBe('p1');
    doc = setReviewState(doc, 'a', ['p2'], 'rejected');
    expect(stepQueue(doc, { imageId: 'a', objectId: 'p2' }, 1, uncertain)?.objectId).toBe('p3');
    expect(stepQueue(doc, { imageId: 'a', objectId: 'p2' }, -1, uncertain)?.objectId).toBe('p4');
    const cats = view({ classFilter: 1 });
    expect(stepQueue(doc, { imageId: 'a', objectId: 'p1' }, 1, cats)?.objectId).toBe('p3');
    // From a proposal the filter leaves out: the next one of the filter after its place.
    expect(stepQueue(doc, { imageId: 'a', objectId: 'p4' }, 1, cats)?.objectId).toBe('p3');
    expect(stepQueue(doc, { imageId: 'a', objectId: 'p4' }, -1, cats)?.objectId).toBe('p1');
    expect(stepQueue(doc, null, 1, view({ classFilter: 99 }))).toBeNull();
  });

  it('follows the document: a proposal re-scored or re-classed moves in the queue at once', () => {
    const doc = classed();
    const rescored = { ...doc, objects: { ...doc.objects, b: doc.objects.b.map((o) => (o.id === 'p5' ? { ...o, confidence: 0.5, classId: 1 } : o)) } };
    expect(ids(reviewQueue(rescored, view({ order: 'uncertain' })))[0]).toBe('p5');
    expect(ids(reviewQueue(rescored, view({ classFilter: 1 })))).toEqual(['p1', 'p3', 'p5']);
  });

  it('accept all at or above a confidence takes only what the filter shows', () => {
    const doc = classed();
    expect(ids(proposalsAtLeast(doc, 0.8, view({ classFilter: 1 })))).toEqual(['p1', 'p3']);
    const next = acceptAllAtLeast(doc, 0.5, view({ classFilter: 1 }));
    expect(ids(reviewQueue(next))).toEqual(['p2', 'p4', 'p5']);
  });
});
