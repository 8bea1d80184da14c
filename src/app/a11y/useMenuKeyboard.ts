import { useEffect, type RefObject } from 'react';
import { menuKeyTarget } from './focusOrder';

/**
 * A menu button's popup: the first item takes focus when it opens, arrows/Home/End move between
 * items, Esc closes it and gives focus back to the button, Tab closes it and lets focus move on.
 */
export function useMenuKeyboard(open: boolean, menu: RefObject<HTMLElement | null>, button: RefObject<HTMLElement | null>, close: () => void): void {
  useEffect(() => {
    const node = menu.current;
    if (!open || !node) return;
    const items = () => Array.from(node.querySelectorAll<HTMLElement>('[role="menuitem"]:not([disabled])'));
    items()[0]?.focus();
    const onKey = (e: KeyboardEvent) => {
      const list = items();
      const target = menuKeyTarget(e.key, list.indexOf(document.activeElement as HTMLElement), list.length);
      if (!target) return;
      e.stopPropagation();
      if ('focus' in target) {
        e.preventDefault();
        list[target.focus]?.focus();
        return;
      }
      if (target.close === 'restore') {
        e.preventDefault();
        button.current?.focus();
      }
      close();
    };
    node.addEventListener('keydown', onKey);
    return () => node.removeEventListener('keydown', onKey);
  }, [open, menu, button, close]);
}
