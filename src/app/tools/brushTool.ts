import type { Vertex } from '../../engine/types';
import { MOUSE_LEFT, type ToolMachine } from './types';

export type BrushToolState = { readonly phase: 'idle' } | { readonly phase: 'painting'; readonly path: readonly Vertex[] };

/** Press, drag, release: the path becomes one stroke (one undo step). Leaving the canvas ends the stroke. */
export function createBrushTool(erase: boolean): ToolMachine<BrushToolState> {
  const finish = (state: BrushToolState, last?: Vertex) =>
    state.phase === 'painting' ? { state: { phase: 'idle' as const }, outputs: [{ type: 'stroke' as const, path: last ? [...state.path, last] : [...state.path], erase }] } : { state, outputs: [] };
  return {
    id: erase ? 'eraser' : 'brush',
    initial: { phase: 'idle' },
    transition(state, event) {
      switch (event.type) {
        case 'down':
          return event.button === MOUSE_LEFT ? { state: { phase: 'painting', path: [event.at] }, outputs: [] } : { state, outputs: [] };
        case 'move':
          return state.phase === 'painting' ? { state: { phase: 'painting', path: [...state.path, event.at] }, outputs: [] } : { state, outputs: [] };
        case 'up':
          return finish(state, event.at);
        case 'leave':
          return finish(state);
        case 'cancel':
          return { state: { phase: 'idle' }, outputs: [] };
        default:
          return { state, outputs: [] };
      }
    },
  };
}

export const brushTool = createBrushTool(false);
export const eraserTool = createBrushTool(true);
