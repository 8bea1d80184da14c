import type { BoxPrompt, Vertex } from '../../engine/types';
import { boxFromDrag, isBoxLargeEnough } from '../geometry/centerBox';
import { MOUSE_LEFT, type ToolMachine } from './types';

/**
 * Press and drag out a box. By default the press point is the CENTER (the API's center-anchored
 * box); with the "corner to corner" setting, or Shift held while dragging, it is a corner instead.
 * Either way the output is the center-anchored box the API takes.
 */
export type BoxToolState =
  | { readonly phase: 'idle' }
  | { readonly phase: 'dragging'; readonly anchor: Vertex; readonly corner: Vertex; readonly fromCorner: boolean };

export function boxOfDrag(state: Extract<BoxToolState, { phase: 'dragging' }>): BoxPrompt {
  return boxFromDrag(state.anchor, state.corner, state.fromCorner);
}

export function createBoxTool(cornersByDefault: boolean): ToolMachine<BoxToolState> {
  // Shift flips the setting for this drag; it is read on every event so it can be pressed mid-drag.
  const fromCorner = (shiftKey: boolean | undefined) => cornersByDefault !== (shiftKey === true);
  return {
    id: 'box',
    initial: { phase: 'idle' },
    transition(state, event) {
      if (state.phase === 'idle') {
        if (event.type === 'down' && event.button === MOUSE_LEFT) {
          return { state: { phase: 'dragging', anchor: event.at, corner: event.at, fromCorner: fromCorner(event.shiftKey) }, outputs: [] };
        }
        return { state, outputs: [] };
      }
      switch (event.type) {
        case 'move':
          return { state: { ...state, corner: event.at, fromCorner: event.shiftKey === undefined ? state.fromCorner : fromCorner(event.shiftKey) }, outputs: [] };
        case 'up': {
          const finished = { ...state, corner: event.at, fromCorner: event.shiftKey === undefined ? state.fromCorner : fromCorner(event.shiftKey) };
          const box = boxOfDrag(finished);
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
}

export const boxTool = createBoxTool(false);
export const cornerBoxTool = createBoxTool(true);
