import { promptOf } from '../state/documentOps';
import { review } from '../state/reviewActions';
import { useReview } from '../state/reviewStore';
import { currentDocument } from '../state/studioStore';
import type { Command } from './command';

/** Enter still accepts a new mask prompted meanwhile (one that is not fixing the proposal shown). */
function promptingSomethingElse(): boolean {
  const doc = currentDocument();
  const prompt = doc.activeImageId ? promptOf(doc, doc.activeImageId) : null;
  return !!prompt && prompt.candidates.length > 0 && prompt.targetObjectId !== useReview.getState().current?.objectId;
}

export const reviewAcceptCommand: Command = {
  id: 'review-accept',
  label: 'Accept the proposal shown (after a fix: its fixed shape) and show the next',
  scope: 'review',
  keys: [
    { key: 'y', shift: false },
    { key: 'Enter', shift: false },
  ],
  enabled: () => useReview.getState().open,
  perform: (input) => (input.key === 'Enter' && promptingSomethingElse() ? false : review.accept()),
};
