import { lastLabelAllPrompts, startLabelAll } from '../labelAllAction';
import { useTool } from '../state/toolStore';
import { useUi } from '../state/uiStore';
import type { Command } from './command';

export const labelAllCommand: Command = {
  id: 'label-all',
  label: 'Label all open images again with the last Label all prompts (Local mode): proposals to review',
  keys: [{ key: 'l', shift: false }],
  perform: () => {
    const prompts = lastLabelAllPrompts();
    // The text panel is where prompts are typed, and it shows the run's progress and its Stop.
    useTool.getState().setTool('text');
    if (prompts.length === 0) useUi.getState().setNotice('Type what to find in the text panel and press Label all once; L then runs it again.');
    else startLabelAll(prompts);
  },
};
