import type { BoxPrompt, Vertex } from '../../engine/types';
import { boxFromDrag, isBoxLargeEnough } from '../geometry/centerBox';
import { MOUSE_LEFT, MOUSE_RIGHT, type InputDevice, type ToolEvent, type ToolMachine, type ToolOutput, type ToolTransition } from './types';

/**
 * The prompt tools (positive point, negative point, box) as one machine, so a point and a box are
 * made in one place whatever the device:
 * - mouse, pen, keyboard: the point tools add a point on the press (right button, Alt, or
 *   Shift+Enter add the opposite kind) and report hover; the box tool drags a box out from the press;
 * - touch, on all three: a tap adds the tool's kind of point (positive with the box tool), a long
 *   press always excludes, a drag draws a box.
 * A box is dragged from its CENTER by default; with the "corner to corner" setting, or Shift held
 * while dragging, from a corner. Either way the output is the center-anchored box the API takes.
 */
export type PromptToolState =
  | { readonly phase: 'idle' }
  | {
      readonly phase: 'dragging';
      readonly anchor: Vertex;
      readonly corner: Vertex;
      readonly fromCorner: boolean;
      /** The drag belongs to the device that began it; the others' input waits until it ends. */
      readonly device: InputDevice;
      readonly moved: boolean;
    };

type Dragging = Extract<PromptToolState, { phase: 'dragging' }>;

export interface PromptToolOptions {
  /** The kind of point a click adds; the box tool's touch tap adds a positive one. */
  readonly positive: boolean;
  /** What a press of the mouse, the pen or the keyboard makes: a point, or the start of a box. */
  readonly press: 'point' | 'box';
  /** The box-drawing setting: drag from a corner rather than from the center. */
  readonly cornersByDefault: boolean;
}

export function boxOfDrag(state: Dragging): BoxPrompt {
  return boxFromDrag(state.anchor, state.corner, state.fromCorner);
}

const IDLE: PromptToolState = { phase: 'idle' };

export function createPromptTool({ positive, press, cornersByDefault }: PromptToolOptions): ToolMachine<PromptToolState> {
  // Shift flips the setting for this drag; it is read on every event so it can be pressed mid-drag
  // (the keyboard's Shift means a larger step, so its events carry none).
  const fromCorner = (shiftKey: boolean | undefined, current: boolean) => (shiftKey === undefined ? current : cornersByDefault !== shiftKey);
  const point = (at: Vertex, isPositive: boolean): ToolOutput => ({ type: 'addPoint', point: { x: at[0], y: at[1], positive: isPositive } });
  const none = (state: PromptToolState): ToolTransition<PromptToolState> => ({ state, outputs: [] });

  function idle(state: PromptToolState, event: ToolEvent): ToolTransition<PromptToolState> {
    switch (event.type) {
      case 'down': {
        if (event.device === 'touch' || press === 'box') {
          if (event.button !== MOUSE_LEFT) return none(state);
          const drag: Dragging = { phase: 'dragging', anchor: event.at, corner: event.at, fromCorner: fromCorner(event.shiftKey, cornersByDefault), device: event.device, moved: false };
          return none(drag);
        }
        if (event.button !== MOUSE_LEFT && event.button !== MOUSE_RIGHT) return none(state);
        const flipped = event.button === MOUSE_RIGHT || event.altKey === true;
        return { state, outputs: [point(event.at, flipped ? !positive : positive)] };
      }
      case 'move':
        return press === 'point' && event.device !== 'touch' ? { state, outputs: [{ type: 'hover', at: event.at }] } : none(state);
      case 'longPress':
        return { state, outputs: [point(event.at, false)] };
      case 'leave':
      case 'cancel':
        return press === 'point' ? { state, outputs: [{ type: 'hover', at: null }] } : none(state);
      default:
        return none(state);
    }
  }

  function dragging(state: Dragging, event: ToolEvent): ToolTransition<PromptToolState> {
    if (event.type === 'cancel') return none(IDLE);
    if (event.type !== 'move' && event.type !== 'up') return none(state);
    if (event.device !== state.device) return none(state);
    const dragged: Dragging = { ...state, corner: event.at, fromCorner: fromCorner(event.shiftKey, state.fromCorner), moved: state.moved || event.type === 'move' };
    if (event.type === 'move') return none(dragged);
    const box = boxOfDrag(dragged);
    if (isBoxLargeEnough(box)) return { state: IDLE, outputs: [{ type: 'setBox', box }] };
    // Too small to be a box. A finger that never moved tapped: a point. A key press is not a
    // release: the anchor stays for the user to move further and press again. Anything else (a
    // click without a drag) is dropped rather than asking for a zero-size mask.
    if (state.device === 'touch' && !dragged.moved) return { state: IDLE, outputs: [point(state.anchor, positive)] };
    if (state.device === 'keyboard') return none(dragged);
    return none(IDLE);
  }

  return {
    initial: IDLE,
    transition: (state, event) => (state.phase === 'idle' ? idle(state, event) : dragging(state, event)),
    draggedBox: (state) => (state.phase === 'dragging' ? boxOfDrag(state) : null),
  };
}
