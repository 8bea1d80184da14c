import { describe, expect, it } from 'vitest';
import { leftOutNote, withoutDuplicates } from './objectDedupe';

const square = (x0: number, y0: number, x1: number, y1: number, label = 'cup') => ({
  label,
  polygons: [{ outer: [[x0, y0], [x1, y0], [x1, y1], [x0, y1]] as [number, number][], holes: [] }],
});
const image = { width: 100, height: 100 };

describe('withoutDuplicates', () => {
  it('drops an incoming object that repeats one already on the image, keeps different ones', () => {
    const existing = [square(0, 0, 50, 50)];
    const incoming = [square(0, 0, 50, 45), square(60, 60, 90, 90), square(55, 0, 95, 30)];
    const { added, reasons } = withoutDuplicates(existing, incoming, image);
    expect(reasons).toEqual(['repeats-accepted']);
    expect(added).toEqual([incoming[1], incoming[2]]);
  });

  it('drops repeats inside one answer too, and a part of an object already proposed', () => {
    const { added, reasons } = withoutDuplicates([], [square(10, 10, 40, 40), square(10, 10, 40, 40), square(12, 12, 30, 30)], image);
    expect(added).toHaveLength(1);
    expect(reasons).toEqual(['repeats-proposal', 'inside-proposal']);
  });

  it('keeps an object inside an accepted one of another class (a cup on a table)', () => {
    const classes = [{ id: 1, name: 'dining table', color: '#000' }];
    const table = { ...square(0, 0, 100, 100, 'table 1'), classId: 1 };
    const { added } = withoutDuplicates([table], [square(40, 40, 50, 50, 'cup')], image, classes);
    expect(added).toHaveLength(1);
  });

  it('drops a mask that swallows two same-class instances, even when it scores best', () => {
    const left = square(0, 0, 40, 90, 'person');
    const right = square(50, 0, 90, 90, 'person');
    const both = square(0, 0, 90, 90, 'person');
    const { added, reasons } = withoutDuplicates([], [both, left, right], image);
    expect(added).toEqual([left, right]);
    expect(reasons).toEqual(['group-of-instances']);
  });

  it('does not propose again what a person rejected, and a rejected object hides nothing else', () => {
    const rejected = { ...square(0, 0, 50, 50), review: { state: 'rejected' as const, source: 'text-prompt' as const } };
    const inside = square(10, 10, 30, 30);
    // Inside a rejected object is no part of anything: a rejected mask is not on the image.
    expect(withoutDuplicates([rejected], [inside], image).added).toEqual([inside]);
    const other = square(60, 60, 90, 90);
    const { added, reasons } = withoutDuplicates([rejected], [square(0, 0, 50, 50), other], image);
    expect(added).toEqual([other]);
    expect(reasons).toEqual(['rejected-before']);
    expect(leftOutNote(reasons)).toBe(' · 1 not added: 1 rejected before');
    // Still proposed: a proposal is on the image like an accepted object.
    const proposed = { ...square(0, 0, 50, 50), review: { state: 'unreviewed' as const, source: 'text-prompt' as const } };
    expect(withoutDuplicates([proposed], [square(0, 0, 50, 50)], image).reasons).toEqual(['repeats-accepted']);
  });
});

describe('leftOutNote', () => {
  it('says how many were left out and why, in words', () => {
    expect(leftOutNote([])).toBe('');
    expect(leftOutNote(['repeats-accepted', 'group-of-instances', 'repeats-accepted'])).toBe(' · 3 not added: 2 already on the image, 1 several objects in one mask');
  });
});
