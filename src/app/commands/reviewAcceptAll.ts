import { review } from '../state/reviewActions';
import { useReview } from '../state/reviewStore';
import type { Command } from './command';

export const reviewAcceptAllCommand: Command = {
  id: 'review-accept-all',
  label: 'Accept every proposal at or above the panel’s confidence',
  scope: 'review',
  keys: [{ key: 'y', shift: true }],
  enabled: () => useReview.getState().open,
  perform: () => {
    review.acceptAllAtThreshold();
  },
};
