import type { Vertex } from '../../engine/types';
import { MOUSE_LEFT, type ToolEvent } from './types';

/**
 * The canvas without a mouse: arrow keys move a crosshair (Shift for larger steps), which is the
 * keyboard's pointer; Enter or Space presses and releases it there, Shift+Enter as the opposite
 * kind (like Alt with the mouse). The tools make of it what they make of any pointer: with the Box
 * tool the first Enter fixes the center (or the first corner) and a second Enter, after moving,
 * the corner (promptTool.ts).
 */
export interface CrosshairState {
  readonly at: Vertex;
}

export interface CrosshairContext {
  readonly imageWidth: number;
  readonly imageHeight: number;
  /** One arrow press, in image pixels (the caller keeps it a constant distance on screen). */
  readonly step: number;
}

export interface CrosshairKey {
  readonly key: string;
  readonly shiftKey: boolean;
}

export const LARGE_STEP_FACTOR = 10;

export function crosshairStart(imageWidth: number, imageHeight: number): CrosshairState {
  return { at: [imageWidth / 2, imageHeight / 2] };
}

const ARROWS: Record<string, Vertex> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

/**
 * A key as the tools' events. `moved`: an arrow, which is the crosshair's whatever the tool does
 * with the move; other keys are the tool's to take or leave (Escape cancels what it is doing).
 */
export function crosshairKey(state: CrosshairState, key: CrosshairKey, context: CrosshairContext): { state: CrosshairState; events: ToolEvent[]; moved: boolean } {
  const arrow = ARROWS[key.key];
  if (arrow) {
    const step = context.step * (key.shiftKey ? LARGE_STEP_FACTOR : 1);
    const at: Vertex = [
      Math.min(context.imageWidth - 1, Math.max(0, state.at[0] + arrow[0] * step)),
      Math.min(context.imageHeight - 1, Math.max(0, state.at[1] + arrow[1] * step)),
    ];
    // No shiftKey on the event: the keyboard's Shift means a larger step, not the box's corner flip.
    return { state: { at }, events: [{ type: 'move', at, device: 'keyboard' }], moved: true };
  }
  if (key.key === 'Escape') return { state, events: [{ type: 'cancel' }], moved: false };
  if (key.key !== 'Enter' && key.key !== ' ') return { state, events: [], moved: false };
  const opposite = key.shiftKey && key.key === 'Enter';
  return {
    state,
    events: [
      { type: 'down', at: state.at, device: 'keyboard', button: MOUSE_LEFT, altKey: opposite },
      { type: 'up', at: state.at, device: 'keyboard' },
    ],
    moved: false,
  };
}
