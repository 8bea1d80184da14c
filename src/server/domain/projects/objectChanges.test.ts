import { describe, expect, it } from 'vitest';
import type { AnnotationObject } from '../../../contract/projects';
import { reviewsDecided, stampChanges } from './objectChanges';

const object = (id: string, review: AnnotationObject['review'] = 'unreviewed'): AnnotationObject => ({
  id,
  classId: 1,
  polygons: [{ outer: [[0, 0], [4, 0], [4, 4]], holes: [] }],
  source: 'local',
  confidence: 0.9,
  visible: true,
  review,
});

describe('who changed each object', () => {
  it('stamps new and changed objects with the writer, and keeps the stamp of untouched ones', () => {
    const stored = stampChanges([], [object('a'), object('b')], 'alice@example.com', '2026-01-01T00:00:00.000Z');
    expect(stored.map((o) => o.changedBy)).toEqual(['alice@example.com', 'alice@example.com']);
    // Bob accepts b and adds c; a comes back as it was (even with a client-side stamp of its own).
    const next = stampChanges(stored, [{ ...object('a'), changedBy: 'mallory@example.com' }, object('b', 'accepted'), object('c')], 'bob@example.com', '2026-01-02T00:00:00.000Z');
    expect(next.map((o) => [o.id, o.changedBy, o.changedAt])).toEqual([
      ['a', 'alice@example.com', '2026-01-01T00:00:00.000Z'],
      ['b', 'bob@example.com', '2026-01-02T00:00:00.000Z'],
      ['c', 'bob@example.com', '2026-01-02T00:00:00.000Z'],
    ]);
  });
});

describe('reviewsDecided', () => {
  const base = { classId: null, polygons: [], source: 'local' as const, confidence: 1, visible: true };
  it('names objects whose review this write sets to accepted or rejected, and machine proposals written new as decided', () => {
    const stored = [
      { ...base, id: 'p1', review: 'unreviewed' as const, proposedBy: 'segment-everything' as const },
      { ...base, id: 'p2', review: 'unreviewed' as const, proposedBy: 'segment-everything' as const },
      { ...base, id: 'mine', review: 'accepted' as const },
    ];
    const incoming = [
      { ...stored[0], review: 'accepted' as const },
      stored[1],
      { ...stored[2], review: 'unreviewed' as const },
      { ...base, id: 'drawn', review: 'accepted' as const },
      { ...base, id: 'copied', review: 'rejected' as const, proposedBy: 'text-prompt' as const },
    ];
    expect(reviewsDecided(stored, incoming)).toEqual(['p1', 'copied']);
    expect(reviewsDecided(stored, stored)).toEqual([]);
  });
});
