import { edits } from '../state/editActions';
import type { Command } from './command';

export const duplicateCommand: Command = {
  id: 'duplicate',
  label: 'Duplicate the selected object',
  keys: [{ key: 'd', mod: true, shift: false }],
  perform: () => {
    edits.duplicateSelected();
  },
};
