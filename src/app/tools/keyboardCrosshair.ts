import type { Vertex } from '../../engine/types';
import { boxFromDrag, isBoxLargeEnough } from '../geometry/centerBox';
import type { ToolOutput } from './types';

/**
 * The canvas without a mouse: arrow keys move a crosshair (Shift for larger steps), Enter or Space
 * places a positive point, Shift+Enter a negative one. With the Box tool the first Enter fixes the
 * center (or the first corner, with the corner setting) and a second Enter, after moving, the corner.
 */
export interface CrosshairState {
  readonly at: Vertex;
  /** The box tool's first Enter, waiting for the second. */
  readonly boxAnchor: Vertex | null;
}

export interface CrosshairContext {
  readonly tool: 'positive' | 'negative' | 'box' | string;
  readonly imageWidth: number;
  readonly imageHeight: number;
  /** One arrow press, in image pixels (the caller keeps it a constant distance on screen). */
  readonly step: number;
  readonly boxFromCorners: boolean;
}

export interface CrosshairKey {
  readonly key: string;
  readonly shiftKey: boolean;
}

export const LARGE_STEP_FACTOR = 10;

export function crosshairStart(imageWidth: number, imageHeight: number): CrosshairState {
  return { at: [imageWidth / 2, imageHeight / 2], boxAnchor: null };
}

const ARROWS: Record<string, Vertex> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

/** `handled` false: the key is not the crosshair's (Tab, shortcuts) and must go on its way. */
export function crosshairKey(state: CrosshairState, key: CrosshairKey, context: CrosshairContext): { state: CrosshairState; outputs: ToolOutput[]; handled: boolean } {
  const arrow = ARROWS[key.key];
  if (arrow) {
    const step = context.step * (key.shiftKey ? LARGE_STEP_FACTOR : 1);
    const at: Vertex = [
      Math.min(context.imageWidth - 1, Math.max(0, state.at[0] + arrow[0] * step)),
      Math.min(context.imageHeight - 1, Math.max(0, state.at[1] + arrow[1] * step)),
    ];
    const hover: ToolOutput[] = context.tool === 'box' ? [] : [{ type: 'hover', at }];
    return { state: { ...state, at }, outputs: hover, handled: true };
  }
  if (key.key === 'Escape' && state.boxAnchor) return { state: { ...state, boxAnchor: null }, outputs: [], handled: true };
  if (key.key !== 'Enter' && key.key !== ' ') return { state, outputs: [], handled: false };
  if (context.tool === 'box') {
    if (!state.boxAnchor) return { state: { ...state, boxAnchor: state.at }, outputs: [], handled: true };
    const box = boxFromDrag(state.boxAnchor, state.at, context.boxFromCorners);
    // Too small to be a box: keep the anchor so the user can move further and press again.
    if (!isBoxLargeEnough(box)) return { state, outputs: [], handled: true };
    return { state: { ...state, boxAnchor: null }, outputs: [{ type: 'setBox', box }], handled: true };
  }
  if (context.tool !== 'positive' && context.tool !== 'negative') return { state, outputs: [], handled: false };
  const positive = (context.tool === 'positive') !== (key.shiftKey && key.key === 'Enter');
  return { state, outputs: [{ type: 'addPoint', point: { x: state.at[0], y: state.at[1], positive } }], handled: true };
}
