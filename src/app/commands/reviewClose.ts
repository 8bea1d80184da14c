import { promptOf } from '../state/documentOps';
import { useEdit } from '../state/editStore';
import { review } from '../state/reviewActions';
import { useReview } from '../state/reviewStore';
import { currentDocument } from '../state/studioStore';
import { useUi } from '../state/uiStore';
import type { Command } from './command';

export const reviewCloseCommand: Command = {
  id: 'review-close',
  label: 'Leave Review (once help, the selection and the prompt are cleared)',
  scope: 'review',
  keys: [{ key: 'Escape' }],
  // Esc first closes help, clears the selection and the prompt (escape.ts); then it leaves Review.
  enabled: () => {
    const doc = currentDocument();
    const prompt = doc.activeImageId ? promptOf(doc, doc.activeImageId) : null;
    const busy = useUi.getState().helpOpen || useEdit.getState().selection.length > 0 || (prompt && (prompt.points.length || prompt.box || prompt.candidates.length));
    return useReview.getState().open && !busy;
  },
  perform: () => {
    review.close();
  },
};
