import { review } from '../state/reviewActions';
import { useReview } from '../state/reviewStore';
import type { Command } from './command';

export const reviewFixCommand: Command = {
  id: 'review-fix',
  label: 'Fix the proposal shown: a click or the brush refines it, then Y or Enter accepts it',
  scope: 'review',
  keys: [{ key: 'c' }],
  enabled: () => useReview.getState().open,
  perform: () => review.fix(),
};
