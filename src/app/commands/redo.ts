import { RedoIcon } from '../icons/icons';
import { studio, useStudio } from '../state/studioStore';
import type { Command } from './command';

export const redoCommand: Command = {
  id: 'redo',
  label: 'Redo',
  keys: [
    { key: 'z', mod: true, shift: true },
    { key: 'y', mod: true },
  ],
  button: { group: 'history', icon: RedoIcon },
  enabled: () => useStudio.getState().history.future.length > 0,
  describe: () => {
    const next = useStudio.getState().history.redoLabels[0];
    return next ? `Redo ${next}` : 'Nothing to redo';
  },
  perform: () => {
    studio.redo();
  },
};
