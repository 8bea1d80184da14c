import type { Vertex } from '../../engine/types';
import { boxFromCenterDrag, isBoxLargeEnough } from '../geometry/centerBox';
import { MOUSE_LEFT, type ToolMachine } from './types';

/** Press at the CENTER, drag out a corner, release: the API's center-anchored box. */
export type BoxToolState = { readonly phase: 'idle' } | { readonly phase: 'dragging'; readonly center: Vertex; readonly corner: Vertex };

export const boxTool: ToolMachine<BoxToolState> = {
  id: 'box',
  initial: { phase: 'idle' },
  transition(state, event) {
    if (state.phase === 'idle') {
      if (event.type === 'down' && event.button === MOUSE_LEFT) {
        return { state: { phase: 'dragging', center: event.at, corner: event.at }, outputs: [] };
      }
      return { state, outputs: [] };
    }
    switch (event.type) {
      case 'move':
        return { state: { ...state, corner: event.at }, outputs: [] };
      case 'up': {
        const box = boxFromCenterDrag(state.center, event.at);
        // A click without a drag is not a box; drop it rather than asking for a zero-size mask.
        return { state: { phase: 'idle' }, outputs: isBoxLargeEnough(box) ? [{ type: 'setBox', box }] : [] };
      }
      case 'cancel':
        return { state: { phase: 'idle' }, outputs: [] };
      default:
        return { state, outputs: [] };
    }
  },
};
