import { edits } from '../state/editActions';
import type { Command } from './command';

export const splitObjectCommand: Command = {
  id: 'split-object',
  label: 'Split the selected object into its parts',
  keys: [{ key: 's' }],
  perform: () => {
    edits.splitSelected();
  },
};
