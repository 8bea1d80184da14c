import { edits } from '../state/editActions';
import type { Command } from './command';

export const mergeObjectsCommand: Command = {
  id: 'merge-objects',
  label: 'Merge the selected objects',
  keys: [{ key: 'm' }],
  perform: () => {
    edits.mergeSelected();
  },
};
