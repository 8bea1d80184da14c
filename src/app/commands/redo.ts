import { studio } from '../state/studioStore';
import type { Command } from './command';

export const redoCommand: Command = {
  id: 'redo',
  label: 'Redo',
  keys: [
    { key: 'z', mod: true, shift: true },
    { key: 'y', mod: true },
  ],
  perform: () => {
    studio.redo();
  },
};
