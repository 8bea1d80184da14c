import { describe, expect, it } from 'vitest';
import type { Annotation } from '../../annotations/annotation';
import { anonymousWorkOf } from './anonymousWork';

const object = (id: string, extra: Partial<Annotation> = {}): Annotation => ({ id, label: 'cat', classId: 1, confidence: 1, color: '#fff', visible: true, polygons: [], source: 'local', ...extra });
const doc = {
  images: [
    { id: 'a', name: 'a.png', width: 10, height: 10 },
    { id: 'b', name: 'b.png', width: 10, height: 10 },
  ],
  objects: { a: [object('o1'), object('o2')], b: [object('o3')] },
};

describe('anonymousWorkOf', () => {
  it('counts the photos and objects left in the anonymous space', () => {
    expect(anonymousWorkOf(doc, null)).toEqual({ photos: 2, objects: 3, signature: 'a,b' });
  });

  it('is nothing when the space is empty, or holds exactly what was brought in already', () => {
    expect(anonymousWorkOf(undefined, null)).toBeNull();
    expect(anonymousWorkOf({ images: [], objects: {} }, null)).toBeNull();
    expect(anonymousWorkOf(doc, 'a,b')).toBeNull();
  });

  it('offers again once other photos were opened there since', () => {
    expect(anonymousWorkOf({ ...doc, images: [...doc.images, { id: 'c', name: 'c.png', width: 1, height: 1 }] }, 'a,b')?.photos).toBe(3);
  });
});
