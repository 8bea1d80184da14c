import { describe, expect, it } from 'vitest';
import { splitLoss, wrongKind } from './apLossSplit';

const instance = { x0: 100, y0: 100, x1: 300, y1: 300 };

describe('wrongKind', () => {
  it('names a second proposal on a found instance a duplicate', () => {
    expect(wrongKind({ box: instance, overlaps: [0.8], instanceBoxes: [instance] })).toBe('duplicate');
  });
  it('names a region inside an instance a part, and one around it the instance with its surroundings', () => {
    const head = { x0: 120, y0: 120, x1: 180, y1: 180 };
    const roomAround = { x0: 0, y0: 0, x1: 600, y1: 600 };
    expect(wrongKind({ box: head, overlaps: [0.09], instanceBoxes: [instance] })).toBe('part');
    expect(wrongKind({ box: roomAround, overlaps: [0.11], instanceBoxes: [instance] })).toBe('withSurroundings');
  });
  it('names a region beside the instances background, and one across an edge another overlap', () => {
    expect(wrongKind({ box: { x0: 400, y0: 400, x1: 500, y1: 500 }, overlaps: [0], instanceBoxes: [instance] })).toBe('background');
    expect(wrongKind({ box: { x0: 200, y0: 100, x1: 400, y1: 300 }, overlaps: [0.33], instanceBoxes: [instance] })).toBe('otherOverlap');
  });
  it('judges against the instance it overlaps most', () => {
    const other = { x0: 500, y0: 500, x1: 520, y1: 520 };
    const head = { x0: 120, y0: 120, x1: 180, y1: 180 };
    expect(wrongKind({ box: head, overlaps: [0, 0.09], instanceBoxes: [other, instance] })).toBe('part');
  });
});

describe('splitLoss', () => {
  it('puts each instance in one place and charges a wrong guess with the right ones ranked under it', () => {
    const split = splitLoss(
      [
        { fitting: [false, true, true, true], takenAt: [undefined, undefined, 0.2, 0.9], wrong: [{ probability: 0.5, truePositive: false, box: { x0: 0, y0: 0, x1: 10, y1: 10 }, overlaps: [0], instanceBoxes: [instance] }] },
        { fitting: [true], takenAt: [0.4], wrong: [] },
      ],
      0.3,
    );
    expect(split).toMatchObject({ instances: 5, noFittingProposal: 1, fittingButNotGuessed: 1, guessedUnderShown: 1, shown: 2 });
    // Right guesses at 0.2 and 0.4 rank under the wrong one at 0.5; the one at 0.9 above it.
    expect(split.wrong.background).toEqual({ shown: 1, rightRankedUnder: 2 });
    expect(split.wrong.part).toEqual({ shown: 0, rightRankedUnder: 0 });
  });
});
