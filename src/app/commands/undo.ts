import { UndoIcon } from '../icons/icons';
import { studio, useStudio } from '../state/studioStore';
import type { Command } from './command';

export const undoCommand: Command = {
  id: 'undo',
  label: 'Undo',
  keys: [{ key: 'z', mod: true, shift: false }],
  button: { group: 'history', icon: UndoIcon },
  enabled: () => useStudio.getState().history.past.length > 0,
  describe: () => {
    const labels = useStudio.getState().history.labels;
    return labels.length ? `Undo ${labels[labels.length - 1]}` : 'Nothing to undo';
  },
  perform: () => {
    studio.undo();
  },
};
