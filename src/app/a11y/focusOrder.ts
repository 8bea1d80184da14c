/**
 * Pure keyboard rules of the dialog and the menu, so the hooks that apply them stay thin.
 */

/** Tab inside a modal dialog: wraps from the last control to the first and back. */
export function trappedFocusIndex(current: number, count: number, backwards: boolean): number {
  if (count === 0) return -1;
  if (current < 0) return backwards ? count - 1 : 0;
  return (current + (backwards ? count - 1 : 1)) % count;
}

/** A menu's keys (WAI-ARIA menu button): arrows wrap, Home/End jump, Esc and Tab close it. */
export function menuKeyTarget(key: string, current: number, count: number): { focus: number } | { close: 'restore' | 'leave' } | null {
  if (count === 0) return null;
  switch (key) {
    case 'ArrowDown':
      return { focus: current < 0 ? 0 : (current + 1) % count };
    case 'ArrowUp':
      return { focus: current < 0 ? count - 1 : (current + count - 1) % count };
    case 'Home':
      return { focus: 0 };
    case 'End':
      return { focus: count - 1 };
    case 'Escape':
      return { close: 'restore' };
    case 'Tab':
      return { close: 'leave' };
    default:
      return null;
  }
}

export const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';
