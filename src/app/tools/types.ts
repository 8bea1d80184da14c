import type { BoxPrompt, PointPrompt, Vertex } from '../../engine/types';

/** Pointer input already converted to image pixels by the canvas. */
export type ToolEvent =
  | { type: 'down'; at: Vertex; button: number; altKey?: boolean; shiftKey?: boolean }
  | { type: 'move'; at: Vertex; shiftKey?: boolean }
  | { type: 'up'; at: Vertex; shiftKey?: boolean }
  | { type: 'leave' }
  | { type: 'cancel' };

/** What a tool asks the studio to do; the studio routes every change through the history. */
export type ToolOutput =
  | { type: 'addPoint'; point: PointPrompt }
  | { type: 'setBox'; box: BoxPrompt }
  | { type: 'hover'; at: Vertex | null }
  /** Select tool: pick the object under `at` (Shift adds to the selection). */
  | { type: 'select'; at: Vertex; additive: boolean }
  /** Brush / eraser: one finished stroke, one undo step. */
  | { type: 'stroke'; path: Vertex[]; erase: boolean };

export interface ToolTransition<S> {
  readonly state: S;
  readonly outputs: readonly ToolOutput[];
}

/** Every tool is a small state machine: pure, one file, tested alone. */
export interface ToolMachine<S> {
  readonly id: ToolId;
  readonly initial: S;
  transition(state: S, event: ToolEvent): ToolTransition<S>;
}

export type ToolId = 'positive' | 'negative' | 'box' | 'text' | 'select' | 'brush' | 'eraser';

export const MOUSE_LEFT = 0;
export const MOUSE_MIDDLE = 1;
export const MOUSE_RIGHT = 2;
