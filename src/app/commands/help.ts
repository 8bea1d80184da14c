import { useUi } from '../state/uiStore';
import type { Command } from './command';

export const helpCommand: Command = {
  id: 'help',
  label: 'This help',
  keys: [{ key: '?' }, { key: 'h' }],
  perform: () => {
    const ui = useUi.getState();
    ui.setHelpOpen(!ui.helpOpen);
  },
};
