import { useEffect, type RefObject } from 'react';
import { FOCUSABLE, trappedFocusIndex } from './focusOrder';

/**
 * A modal dialog: focus moves into it when it opens, Tab stays inside, Esc closes it, and focus
 * returns to where it was when it closes.
 */
export function useFocusTrap(container: RefObject<HTMLElement | null>, onClose: () => void): void {
  useEffect(() => {
    const node = container.current;
    if (!node) return;
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
      if (e.key !== 'Tab') return;
      const items = focusables();
      const next = trappedFocusIndex(items.indexOf(document.activeElement as HTMLElement), items.length, e.shiftKey);
      e.preventDefault();
      (items[next] ?? node).focus();
    };
    node.addEventListener('keydown', onKey);
    return () => {
      node.removeEventListener('keydown', onKey);
      if (previous?.isConnected) previous.focus();
    };
    // Once per opening: the dialog mounts when it opens.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
}
