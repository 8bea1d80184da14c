import type { Vertex } from '../../engine/types';
import { BrushIcon, EraserIcon } from '../icons/editIcons';
import { POINTER_DEVICES, type ToolDefinition } from './toolDefinition';
import { MOUSE_LEFT, type ToolMachine } from './types';

export type BrushToolState = { readonly phase: 'idle' } | { readonly phase: 'painting'; readonly path: readonly Vertex[] };

/** Press, drag, release: the path becomes one stroke (one undo step). Leaving the canvas ends the stroke. */
export function createBrushMachine(erase: boolean): ToolMachine<BrushToolState> {
  const finish = (state: BrushToolState, last?: Vertex) =>
    state.phase === 'painting' ? { state: { phase: 'idle' as const }, outputs: [{ type: 'stroke' as const, path: last ? [...state.path, last] : [...state.path], erase }] } : { state, outputs: [] };
  return {
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
    strokeUnderWay: (state) => (state.phase === 'painting' ? state.path : null),
  };
}

export const brushTool: ToolDefinition = {
  id: 'brush',
  label: 'Brush',
  key: 'B',
  hint: 'Paint into the selected object (nothing selected: a new object); [ ] or wheel while held: size',
  help: 'Brush on the selected object',
  icon: BrushIcon,
  cursor: 'none',
  devices: POINTER_DEVICES,
  machine: () => createBrushMachine(false),
};

export const eraserTool: ToolDefinition = {
  id: 'eraser',
  label: 'Eraser',
  key: 'E',
  hint: 'Erase from the selected object; [ ] or wheel while held: size',
  help: 'Eraser on the selected object',
  icon: EraserIcon,
  cursor: 'none',
  devices: POINTER_DEVICES,
  machine: () => createBrushMachine(true),
};
