import type { BoxPrompt, PointPrompt, Vertex } from '../../engine/types';

/** Where an input came from. Pen and mouse are one kind of pointer; the touch and keyboard adapters speak the same events. */
export type InputDevice = 'mouse' | 'pen' | 'touch' | 'keyboard';

/**
 * Input of every device, normalised by its adapter (`pointerInput`, `touchInput`, `keyboardInput`)
 * and already in image pixels: the one language the tools' state machines understand.
 */
export type ToolEvent =
  | { type: 'down'; at: Vertex; device: InputDevice; button: number; altKey?: boolean; shiftKey?: boolean }
  | { type: 'move'; at: Vertex; device: InputDevice; shiftKey?: boolean }
  | { type: 'up'; at: Vertex; device: InputDevice; shiftKey?: boolean }
  /** A finger held still on one spot (the touch adapter tells it from a tap and a drag). */
  | { type: 'longPress'; at: Vertex; device: 'touch' }
  | { type: 'leave' }
  | { type: 'cancel' };

/** What a tool asks the studio to do; the studio routes every change through the history. */
export type ToolOutput =
  | { type: 'addPoint'; point: PointPrompt }
  | { type: 'setBox'; box: BoxPrompt }
  /** Box annotation tool: a finished box (center-anchored, as every tool box), one undo step. */
  | { type: 'addBox'; box: BoxPrompt }
  | { type: 'hover'; at: Vertex | null }
  /** Select tool: pick the object under `at` (Shift adds to the selection). */
  | { type: 'select'; at: Vertex; additive: boolean }
  /** Brush / eraser: one finished stroke, one undo step. */
  | { type: 'stroke'; path: Vertex[]; erase: boolean };

export interface ToolTransition<S> {
  readonly state: S;
  readonly outputs: readonly ToolOutput[];
}

/** Every tool is a small state machine: pure, tested alone. */
export interface ToolMachine<S> {
  readonly initial: S;
  transition(state: S, event: ToolEvent): ToolTransition<S>;
  /** The box being dragged out in `state`, for the canvas to draw. */
  draggedBox?(state: S): BoxPrompt | null;
  /** The stroke being painted in `state`, for the canvas to draw. */
  strokeUnderWay?(state: S): readonly Vertex[] | null;
}

export const MOUSE_LEFT = 0;
export const MOUSE_MIDDLE = 1;
export const MOUSE_RIGHT = 2;
