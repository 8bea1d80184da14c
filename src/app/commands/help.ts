import { useUi } from '../state/uiStore';
import type { Command } from './command';

export const helpCommand: Command = {
  id: 'help',
  label: 'Keyboard shortcuts',
  keys: [{ key: '?' }, { key: 'h' }],
  button: { group: 'help', face: '?' },
  perform: () => {
    const ui = useUi.getState();
    ui.setHelpOpen(!ui.helpOpen);
  },
};
