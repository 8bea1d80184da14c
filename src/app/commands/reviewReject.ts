import { useEdit } from '../state/editStore';
import { review } from '../state/reviewActions';
import { useReview } from '../state/reviewStore';
import type { Command } from './command';

export const reviewRejectCommand: Command = {
  id: 'review-reject',
  label: 'Reject the proposal shown and show the next',
  scope: 'review',
  keys: [{ key: 'Delete' }, { key: 'Backspace' }],
  // A selected vertex, or objects other than the proposal shown, are deleted as usual.
  enabled: () => {
    const { open, current } = useReview.getState();
    const { selectedVertex, selection } = useEdit.getState();
    return open && !selectedVertex && !selection.some((id) => id !== current?.objectId);
  },
  perform: () => review.reject(),
};
