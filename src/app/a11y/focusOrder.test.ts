import { describe, expect, it } from 'vitest';
import { menuKeyTarget, trappedFocusIndex } from './focusOrder';

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

describe('menu keys', () => {
  it('arrows move and wrap, Home/End jump, Esc closes back to the button, Tab closes and moves on', () => {
    expect(menuKeyTarget('ArrowDown', 4, 5)).toEqual({ focus: 0 });
    expect(menuKeyTarget('ArrowUp', 0, 5)).toEqual({ focus: 4 });
    expect(menuKeyTarget('ArrowDown', -1, 5)).toEqual({ focus: 0 });
    expect(menuKeyTarget('End', 1, 5)).toEqual({ focus: 4 });
    expect(menuKeyTarget('Home', 3, 5)).toEqual({ focus: 0 });
    expect(menuKeyTarget('Escape', 2, 5)).toEqual({ close: 'restore' });
    expect(menuKeyTarget('Tab', 2, 5)).toEqual({ close: 'leave' });
    expect(menuKeyTarget('x', 2, 5)).toBeNull();
  });
});
