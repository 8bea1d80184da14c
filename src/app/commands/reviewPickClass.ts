import { objectOf } from '../state/reviewOps';
import { useReview } from '../state/reviewStore';
import { currentDocument } from '../state/studioStore';
import type { Command } from './command';

export const reviewPickClassCommand: Command = {
  id: 'review-pick-class',
  label: 'Type the class of the proposal shown (any class, or a new one), Enter gives it',
  scope: 'review',
  keys: [{ key: '/' }],
  enabled: () => {
    const { open, current } = useReview.getState();
    return open && current !== null && objectOf(currentDocument(), current) !== undefined;
  },
  perform: () => {
    useReview.getState().setPicking(true);
  },
};
