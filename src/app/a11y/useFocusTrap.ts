import { useEffect, type RefObject } from 'react';
import { FOCUSABLE, trappedFocusIndex } from './focusOrder';

/**
 * A dialog: focus moves into it when it opens, Tab (and, if asked, the arrow keys) stays inside,
 * Esc closes it, and focus returns to where it was when it closes.
 */
export function useFocusTrap(container: RefObject<HTMLElement | null>, onClose: () => void, options: { active?: boolean; arrows?: boolean } = {}): void {
  const { active = true, arrows = false } = options;
  useEffect(() => {
    const node = container.current;
    if (!active || !node) return;
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const focusables = () => Array.from(node.querySelectorAll<HTMLElement>(FOCUSABLE));
    (focusables()[0] ?? node).focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        onClose();
        return;
      }
      const arrow = arrows && (e.key === 'ArrowDown' || e.key === 'ArrowUp');
      if (e.key !== 'Tab' && !arrow) return;
      const items = focusables();
      const next = trappedFocusIndex(items.indexOf(document.activeElement as HTMLElement), items.length, arrow ? e.key === 'ArrowUp' : e.shiftKey);
      e.preventDefault();
      (items[next] ?? node).focus();
    };
    node.addEventListener('keydown', onKey);
    return () => {
      node.removeEventListener('keydown', onKey);
      if (previous?.isConnected) previous.focus();
    };
    // Once per opening.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [active]);
}
