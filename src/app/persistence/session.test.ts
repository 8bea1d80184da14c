import { describe, expect, it } from 'vitest';
import { addImage, addObjects, addPoint, applyCandidates, markPending } from '../state/documentOps';
import { proposedBy, reviewStateOf } from '../../annotations/review';
import { setReviewState } from '../state/reviewOps';
import { emptyDocument } from '../state/model';
import { stripForStorage } from './session';

describe('session storage', () => {
  it('drops the decoder logits and never restores a request as still running', () => {
    let doc = addImage(emptyDocument(), { id: 'img', name: 'a.png', width: 10, height: 10 });
    doc = addPoint(doc, 'img', { x: 1, y: 1 }, 1);
    doc = applyCandidates(doc, 'img', 1, [{ polygons: [], score: 0.9, area: 3, lowResLogits: new Float32Array(65536) }]);
    const stored = stripForStorage(doc);
    expect(stored.prompts.img.candidates[0]).toEqual({ polygons: [], score: 0.9, area: 3 });
    expect(doc.prompts.img.candidates[0].lowResLogits).toBeInstanceOf(Float32Array);

    const pending = markPending(addPoint(doc, 'img', { x: 2, y: 2 }, 2), 'img', 2, 'pending');
    expect(stripForStorage(pending).prompts.img.status).toBe('idle');
  });

  it('keeps each object’s review state and source (a session from before review reads as accepted)', () => {
    let doc = addImage(emptyDocument(), { id: 'img', name: 'a.png', width: 10, height: 10 });
    const base = { label: 'cat', confidence: 0.8, visible: true, polygons: [], source: 'text' as const, classId: null };
    doc = addObjects(doc, 'img', [{ ...base, id: 'p', review: proposedBy('text-prompt') }, { ...base, id: 'old' }]);
    doc = setReviewState(doc, 'img', ['p'], 'rejected');
    // What IndexedDB keeps is a structured clone of the stripped document.
    const restored = structuredClone(stripForStorage(doc));
    expect(restored.objects.img.map((o) => [o.id, reviewStateOf(o), o.review?.source])).toEqual([
      ['p', 'rejected', 'text-prompt'],
      ['old', 'accepted', undefined],
    ]);
  });
});
