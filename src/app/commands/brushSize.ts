import { brushStep, useEdit } from '../state/editStore';
import { useTool } from '../state/toolStore';
import type { Command } from './command';

export const brushSizeCommand: Command = {
  id: 'brush-size',
  label: 'Smaller / larger brush',
  scope: 'painting',
  keys: [{ key: '[' }, { key: ']' }],
  enabled: () => ['brush', 'eraser'].includes(useTool.getState().tool),
  perform: (input) => {
    const edit = useEdit.getState();
    edit.setBrushSize(brushStep(edit.brushSize, input.key === ']' ? 1 : -1));
  },
};
