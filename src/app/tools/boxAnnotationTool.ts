import type { BoxPrompt, Vertex } from '../../engine/types';
import { BoxAnnotationIcon } from '../icons/icons';
import { boxFromDrag, isBoxLargeEnough } from '../geometry/centerBox';
import { ALL_DEVICES, type ToolDefinition } from './toolDefinition';
import { MOUSE_LEFT, type InputDevice, type ToolMachine } from './types';

/**
 * The box annotation tool: a drag makes a box annotation (a detection label, not a SAM prompt).
 * Corner to corner, as detection tools draw; Shift held while dragging anchors the box at its
 * centre instead, like the prompt box. The keyboard's crosshair presses at one corner and releases
 * at the other; a box too small to see is dropped.
 */
export type BoxAnnotationState =
  | { readonly phase: 'idle' }
  | { readonly phase: 'dragging'; readonly anchor: Vertex; readonly corner: Vertex; readonly fromCenter: boolean; readonly device: InputDevice };

const IDLE: BoxAnnotationState = { phase: 'idle' };

const boxOf = (state: Extract<BoxAnnotationState, { phase: 'dragging' }>): BoxPrompt => boxFromDrag(state.anchor, state.corner, !state.fromCenter);

export const boxAnnotationMachine: ToolMachine<BoxAnnotationState> = {
  initial: IDLE,
  transition(state, event) {
    if (state.phase === 'idle') {
      if (event.type !== 'down' || event.button !== MOUSE_LEFT) return { state, outputs: [] };
      return { state: { phase: 'dragging', anchor: event.at, corner: event.at, fromCenter: event.shiftKey === true, device: event.device }, outputs: [] };
    }
    if (event.type === 'cancel') return { state: IDLE, outputs: [] };
    if ((event.type !== 'move' && event.type !== 'up') || event.device !== state.device) return { state, outputs: [] };
    // The keyboard's Shift means a larger crosshair step, so its events carry none: the anchor's choice stays.
    const dragged = { ...state, corner: event.at, fromCenter: event.shiftKey ?? state.fromCenter };
    if (event.type === 'move') return { state: dragged, outputs: [] };
    const box = boxOf(dragged);
    if (isBoxLargeEnough(box)) return { state: IDLE, outputs: [{ type: 'addBox', box }] };
    // A key press is not a release: the anchor stays for the crosshair to move on.
    return { state: state.device === 'keyboard' ? dragged : IDLE, outputs: [] };
  },
  draggedBox: (state) => (state.phase === 'dragging' ? boxOf(state) : null),
};

export const boxAnnotationTool: ToolDefinition = {
  id: 'box-annotation',
  label: 'Box annotation',
  key: 'O',
  hint: 'Drag a box around an object, corner to corner (Shift: from its centre); it becomes a box of the current class. Drag its handles to resize',
  help: 'Box annotation tool (drag corner to corner; Shift: from the centre)',
  icon: BoxAnnotationIcon,
  cursor: 'crosshair',
  devices: ALL_DEVICES,
  machine: () => boxAnnotationMachine,
};
