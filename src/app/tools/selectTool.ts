import { MOUSE_LEFT, type ToolMachine } from './types';

/** A click picks the object under the cursor; Shift+click adds to (or removes from) the selection. */
export const selectTool: ToolMachine<null> = {
  id: 'select',
  initial: null,
  transition(state, event) {
    if (event.type === 'down' && event.button === MOUSE_LEFT) return { state, outputs: [{ type: 'select', at: event.at, additive: event.shiftKey === true }] };
    return { state, outputs: [] };
  },
};
