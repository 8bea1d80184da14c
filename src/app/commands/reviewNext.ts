import { review } from '../state/reviewActions';
import { useReview } from '../state/reviewStore';
import type { Command } from './command';

export const reviewNextCommand: Command = {
  id: 'review-next',
  label: 'Next proposal',
  scope: 'review',
  keys: [{ key: 'j' }],
  enabled: () => useReview.getState().open,
  perform: () => {
    review.next();
  },
};
