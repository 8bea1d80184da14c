import { promptOf } from './state/documentOps';
import { useEdit } from './state/editStore';
import { review } from './state/reviewActions';
import { useReview } from './state/reviewStore';
import { currentDocument } from './state/studioStore';
import { useUi } from './state/uiStore';
import type { Shortcut } from './shortcuts';

/** Keys of the review queue; listed in the help overlay with the others. */
export const REVIEW_SHORTCUTS: readonly Shortcut[] = [
  { keys: 'R', action: 'Review: open / close the queue of proposals (text prompts, find similar, segment everything)' },
  { keys: 'Y / Enter in Review', action: 'Accept the proposal shown (after a fix: its fixed shape) and show the next' },
  { keys: 'Delete / Backspace in Review', action: 'Reject the proposal shown and show the next' },
  { keys: 'J / K in Review', action: 'Next / previous proposal' },
  { keys: 'C in Review', action: 'Fix the proposal shown: a click or the brush refines it, then Y or Enter accepts it' },
  { keys: 'Shift+Y in Review', action: 'Accept every proposal at or above the panel’s confidence' },
];

/**
 * R opens and closes Review; while it is open, the review keys come before the editing ones. Enter
 * still accepts a new mask prompted meanwhile (one that is not fixing the proposal shown), Delete
 * still deletes a selected vertex or other selected objects.
 */
export function handleReviewShortcut(e: KeyboardEvent): boolean {
  if (e.ctrlKey || e.metaKey || e.altKey) return false;
  const key = e.key;
  if ((key === 'r' || key === 'R') && !e.shiftKey) {
    review.toggle();
    return true;
  }
  const { open, current } = useReview.getState();
  if (!open) return false;
  switch (key) {
    case 'y':
    case 'Y':
      if (e.shiftKey) review.acceptAllAtThreshold();
      else review.accept();
      return true;
    case 'Enter': {
      if (e.shiftKey) return false;
      const doc = currentDocument();
      const prompt = doc.activeImageId ? promptOf(doc, doc.activeImageId) : null;
      const promptingSomethingElse = !!prompt && prompt.candidates.length > 0 && prompt.targetObjectId !== current?.objectId;
      return promptingSomethingElse ? false : review.accept();
    }
    case 'Delete':
    case 'Backspace': {
      // A selected vertex, or objects other than the proposal shown, are deleted as usual.
      const { selectedVertex, selection } = useEdit.getState();
      if (selectedVertex || selection.some((id) => id !== current?.objectId)) return false;
      return review.reject();
    }
    case 'j':
    case 'J':
      review.next();
      return true;
    case 'k':
    case 'K':
      review.previous();
      return true;
    case 'c':
    case 'C':
      return review.fix();
    case 'Escape': {
      // Esc first closes help, clears the selection and the prompt (shortcuts.ts); then it leaves Review.
      const doc = currentDocument();
      const prompt = doc.activeImageId ? promptOf(doc, doc.activeImageId) : null;
      if (useUi.getState().helpOpen || useEdit.getState().selection.length || (prompt && (prompt.points.length || prompt.box || prompt.candidates.length))) return false;
      review.close();
      return true;
    }
    default:
      return false;
  }
}
