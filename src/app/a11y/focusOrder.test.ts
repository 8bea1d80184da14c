import { describe, expect, it } from 'vitest';
import { trappedFocusIndex } from './focusOrder';

describe('dialog focus trap', () => {
  it('Tab wraps from last to first, Shift+Tab from first to last; focus from outside enters at an end', () => {
    expect(trappedFocusIndex(2, 3, false)).toBe(0);
    expect(trappedFocusIndex(0, 3, true)).toBe(2);
    expect(trappedFocusIndex(1, 3, false)).toBe(2);
    expect(trappedFocusIndex(-1, 3, false)).toBe(0);
    expect(trappedFocusIndex(-1, 3, true)).toBe(2);
    expect(trappedFocusIndex(-1, 0, false)).toBe(-1);
  });
});
