/** Objects for the project sync tests: one class, and square objects of it where `x` says. */
import type { Annotation } from '../../annotations/annotation';

export const CAT = { id: 1, name: 'cat', color: '#ff5c5c' };

/** A 40 × 40 square of the cat class whose left edge is at `x`. */
export const square = (id: string, x: number, extra: Partial<Annotation> = {}): Annotation => ({
  id,
  label: 'cat',
  classId: 1,
  confidence: 1,
  color: CAT.color,
  visible: true,
  polygons: [{ outer: [[x, 20], [x + 40, 20], [x + 40, 60], [x, 60]], holes: [] }],
  source: 'local',
  ...extra,
});
