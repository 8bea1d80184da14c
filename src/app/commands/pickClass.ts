import { classActions } from '../state/editActions';
import { DIGIT_KEYS, type Command } from './command';

export const pickClassCommand: Command = {
  id: 'pick-class',
  label: 'Current class (and class of the selected objects)',
  keys: DIGIT_KEYS,
  perform: (input) => classActions.pickByKey(Number(input.key)),
};
