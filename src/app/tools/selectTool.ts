import { SelectIcon } from '../icons/editIcons';
import { POINTER_DEVICES, type ToolDefinition } from './toolDefinition';
import { MOUSE_LEFT, type ToolMachine } from './types';

/** A click picks the object under the cursor; Shift+click adds to (or removes from) the selection. */
export const selectMachine: ToolMachine<null> = {
  initial: null,
  transition(state, event) {
    if (event.type === 'down' && event.button === MOUSE_LEFT) return { state, outputs: [{ type: 'select', at: event.at, additive: event.shiftKey === true }] };
    return { state, outputs: [] };
  },
};

export const selectTool: ToolDefinition = {
  id: 'select',
  label: 'Select',
  key: 'V',
  hint: 'Click an object to select it (Shift adds); drag its vertices, double-click an edge to add one',
  help: 'Select tool (click an object; Shift+click adds)',
  icon: SelectIcon,
  cursor: 'default',
  devices: POINTER_DEVICES,
  machine: () => selectMachine,
};
