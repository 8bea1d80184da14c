import { review } from '../state/reviewActions';
import type { Command } from './command';

export const reviewToggleCommand: Command = {
  id: 'review-toggle',
  label: 'Review: open / close the queue of proposals (text prompts, find similar, segment everything)',
  keys: [{ key: 'r', shift: false }],
  perform: () => {
    review.toggle();
  },
};
