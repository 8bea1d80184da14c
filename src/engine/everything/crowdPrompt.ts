/**
 * Box prompts in a crowd. A detector's small box around one bottle in a row of bottles also covers
 * parts of its neighbours, and SAM answers it with a mask that spills onto them. The detectors often
 * box the neighbours too: where another box's centre lies inside this one, a negative click there
 * tells the decoder which object is not meant, as a person would click a neighbour away. It goes with
 * the box in the same decoder run.
 *
 * A box around this one (holding all of it: a table under the cups, a person holding the phone) is not
 * a neighbour but a larger object this one lies on, and gets no negative click.
 */
import type { CornerBox } from '../text/detector';
import type { PointPrompt } from '../types';

const centreOf = (box: CornerBox) => ({ x: (box.x0 + box.x1) / 2, y: (box.y0 + box.y1) / 2 });

const holds = (box: CornerBox, point: { x: number; y: number }): boolean => point.x > box.x0 && point.x < box.x1 && point.y > box.y0 && point.y < box.y1;

const around = (outer: CornerBox, inner: CornerBox): boolean => outer.x0 <= inner.x0 && outer.y0 <= inner.y0 && outer.x1 >= inner.x1 && outer.y1 >= inner.y1;

/**
 * Negative clicks for `box` at the centres of the `others` beside it (same pixels as the boxes); an
 * entry equal to `box` itself is skipped.
 */
export function neighbourNegatives(box: CornerBox, others: readonly CornerBox[]): PointPrompt[] {
  const negatives: PointPrompt[] = [];
  for (const other of others) {
    if (other.x0 === box.x0 && other.y0 === box.y0 && other.x1 === box.x1 && other.y1 === box.y1) continue;
    const otherCentre = centreOf(other);
    if (holds(box, otherCentre) && !around(other, box)) negatives.push({ ...otherCentre, positive: false });
  }
  return negatives;
}
