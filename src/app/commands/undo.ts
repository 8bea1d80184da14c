import { studio } from '../state/studioStore';
import type { Command } from './command';

export const undoCommand: Command = {
  id: 'undo',
  label: 'Undo',
  keys: [{ key: 'z', mod: true, shift: false }],
  perform: () => {
    studio.undo();
  },
};
