import { runKey } from './commands/registry';
import { useTagKey } from './state/tagKeyStore';
import { useUi } from './state/uiStore';

/** Fields where Ctrl+Z undoes typing: they keep it. A menu, slider or swatch has no undo of its own. */
function editsText(target: HTMLElement): boolean {
  if (target.isContentEditable || target.tagName === 'TEXTAREA') return true;
  return target.tagName === 'INPUT' && !NON_TEXT_INPUTS.has((target as HTMLInputElement).type);
}

const NON_TEXT_INPUTS = new Set(['checkbox', 'radio', 'range', 'color', 'file', 'button', 'submit', 'reset', 'image']);

const isUndoOrRedo = (e: KeyboardEvent) => (e.ctrlKey || e.metaKey) && /^[zy]$/i.test(e.key);

/**
 * The window's keydown: a key typed into a field stays there; otherwise the command registry
 * (commands/registry.ts) runs the command the key calls for. True when one ran.
 */
export function handleShortcut(e: KeyboardEvent): boolean {
  const target = e.target as HTMLElement | null;
  // Undo and redo also from a control that keeps the focus after a change (the class menu of an
  // object, say): else Ctrl+Z does nothing there while the Undo button works.
  if (isUndoOrRedo(e) && !(target && editsText(target)) && useUi.getState().page === 'studio' && runKey(e) !== null) return true;
  if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return false;
  // Enter on a focused button or link activates that control, not the "accept" shortcut, except on
  // a mask candidate: picking one is done by clicking it, and Enter then accepts it as the help says.
  if (e.key === 'Enter' && target && /^(BUTTON|A)$/.test(target.tagName) && !target.closest('[aria-label="Mask candidates"]')) return false;
  if (useUi.getState().page !== 'studio') return false;
  if (['Shift', 'Control', 'Alt', 'Meta'].includes(e.key)) return false;
  // The image-tag key holds for the one key after it: a digit tags, anything else lets it go.
  const tagKeyWasArmed = useTagKey.getState().armed;
  const ran = runKey(e);
  if (tagKeyWasArmed) useTagKey.getState().setArmed(false);
  return ran !== null;
}
