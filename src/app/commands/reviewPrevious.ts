import { review } from '../state/reviewActions';
import { useReview } from '../state/reviewStore';
import type { Command } from './command';

export const reviewPreviousCommand: Command = {
  id: 'review-previous',
  label: 'Previous proposal',
  scope: 'review',
  keys: [{ key: 'k' }],
  enabled: () => useReview.getState().open,
  perform: () => {
    review.previous();
  },
};
