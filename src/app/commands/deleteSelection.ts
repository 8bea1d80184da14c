import { edits } from '../state/editActions';
import type { Command } from './command';

export const deleteSelectionCommand: Command = {
  id: 'delete-selection',
  label: 'Delete the selected vertex, else the selected objects',
  keys: [{ key: 'Delete' }, { key: 'Backspace' }],
  perform: () => edits.deleteVertexOrSelection(),
};
