import type { Vertex } from '../../engine/types';

/**
 * Touch on the canvas, as a pure state machine over pointer events (screen pixels, milliseconds):
 * one finger tapped = a positive point, held still = a negative point, dragged = a box; two
 * fingers = pan and pinch-zoom (and never a point or a box, even if one finger lifts first).
 */
export const TAP_SLOP_PX = 10;
export const LONG_PRESS_MS = 550;

export type TouchState =
  | { readonly phase: 'idle' }
  | { readonly phase: 'pressing'; readonly id: number; readonly start: Vertex; readonly startTime: number }
  | { readonly phase: 'dragging'; readonly id: number; readonly start: Vertex; readonly current: Vertex }
  | { readonly phase: 'held'; readonly id: number }
  | { readonly phase: 'pinching'; readonly fingers: ReadonlyMap<number, Vertex> }
  /** After a pinch, until every finger is up: nothing is placed. */
  | { readonly phase: 'settling'; readonly remaining: number };

/**
 * `time` is when the finger did it (the event's timestamp), not when the page got round to it: a
 * busy page receives a drag's moves late, and a press is long or short by the finger's clock.
 */
export type TouchEvent =
  | { type: 'down'; id: number; at: Vertex; time: number }
  | { type: 'move'; id: number; at: Vertex; time: number }
  | { type: 'up'; id: number; at: Vertex; time: number }
  | { type: 'cancel'; id: number }
  /**
   * The long-press timer fired (the caller runs one timer per press, a punctual one, so the moves a
   * busy page received late are seen before the tick).
   */
  | { type: 'tick'; time: number };

export type TouchOutput =
  | { type: 'tap'; at: Vertex }
  | { type: 'longPress'; at: Vertex }
  | { type: 'dragStart'; at: Vertex }
  | { type: 'dragMove'; start: Vertex; at: Vertex }
  | { type: 'dragEnd'; start: Vertex; at: Vertex }
  | { type: 'dragCancel' }
  | { type: 'pan'; delta: Vertex }
  | { type: 'zoom'; center: Vertex; factor: number };

export const initialTouch: TouchState = { phase: 'idle' };

const distance = (a: Vertex, b: Vertex) => Math.hypot(a[0] - b[0], a[1] - b[1]);

function centroidAndSpread(fingers: ReadonlyMap<number, Vertex>): { center: Vertex; spread: number } {
  const points = [...fingers.values()];
  const center: Vertex = [points.reduce((s, p) => s + p[0], 0) / points.length, points.reduce((s, p) => s + p[1], 0) / points.length];
  const spread = points.length > 1 ? distance(points[0], points[1]) : 0;
  return { center, spread };
}

function startPinch(state: TouchState, id: number, at: Vertex): { state: TouchState; outputs: TouchOutput[] } {
  const fingers = new Map<number, Vertex>();
  if (state.phase === 'pressing') fingers.set(state.id, state.start);
  if (state.phase === 'dragging') fingers.set(state.id, state.current);
  fingers.set(id, at);
  return { state: { phase: 'pinching', fingers }, outputs: state.phase === 'dragging' ? [{ type: 'dragCancel' }] : [] };
}

export function touchTransition(state: TouchState, event: TouchEvent): { state: TouchState; outputs: TouchOutput[] } {
  const none = { state, outputs: [] as TouchOutput[] };
  switch (state.phase) {
    case 'idle':
      if (event.type === 'down') return { state: { phase: 'pressing', id: event.id, start: event.at, startTime: event.time }, outputs: [] };
      return none;
    case 'pressing':
      if (event.type === 'down') return startPinch(state, event.id, event.at);
      if (event.type === 'tick') {
        if (event.time - state.startTime < LONG_PRESS_MS) return none;
        return { state: { phase: 'held', id: state.id }, outputs: [{ type: 'longPress', at: state.start }] };
      }
      if (!('id' in event) || event.id !== state.id) return none;
      // Held still past the long-press time, then lifted or moved before the tick came: a long press all the same.
      const heldLongEnough = event.type !== 'cancel' && event.time - state.startTime >= LONG_PRESS_MS;
      const longPress: TouchOutput[] = [{ type: 'longPress', at: state.start }];
      if (heldLongEnough && event.type === 'up') return { state: initialTouch, outputs: longPress };
      if (heldLongEnough && distance(event.at, state.start) > TAP_SLOP_PX) return { state: { phase: 'held', id: state.id }, outputs: longPress };
      if (event.type === 'move') {
        if (distance(event.at, state.start) <= TAP_SLOP_PX) return none;
        return {
          state: { phase: 'dragging', id: state.id, start: state.start, current: event.at },
          outputs: [{ type: 'dragStart', at: state.start }, { type: 'dragMove', start: state.start, at: event.at }],
        };
      }
      if (event.type === 'up') return { state: initialTouch, outputs: [{ type: 'tap', at: state.start }] };
      return { state: initialTouch, outputs: [] };
    case 'dragging':
      if (event.type === 'down') return startPinch(state, event.id, event.at);
      if (!('id' in event) || event.id !== state.id) return none;
      if (event.type === 'move') return { state: { ...state, current: event.at }, outputs: [{ type: 'dragMove', start: state.start, at: event.at }] };
      if (event.type === 'up') return { state: initialTouch, outputs: [{ type: 'dragEnd', start: state.start, at: event.at }] };
      return { state: initialTouch, outputs: [{ type: 'dragCancel' }] };
    case 'held':
      // The point is placed; the finger lifting (or wandering) adds nothing more.
      if (event.type === 'down') return startPinch({ phase: 'idle' }, event.id, event.at);
      if ((event.type === 'up' || event.type === 'cancel') && event.id === state.id) return { state: initialTouch, outputs: [] };
      return none;
    case 'pinching': {
      if (event.type === 'tick') return none;
      const fingers = new Map(state.fingers);
      if (event.type === 'down') {
        fingers.set(event.id, event.at);
        return { state: { phase: 'pinching', fingers }, outputs: [] };
      }
      if (!fingers.has(event.id)) return none;
      if (event.type === 'move') {
        const before = centroidAndSpread(fingers);
        fingers.set(event.id, event.at);
        const after = centroidAndSpread(fingers);
        const outputs: TouchOutput[] = [{ type: 'pan', delta: [after.center[0] - before.center[0], after.center[1] - before.center[1]] }];
        if (before.spread > 0 && after.spread > 0 && after.spread !== before.spread) outputs.push({ type: 'zoom', center: after.center, factor: after.spread / before.spread });
        return { state: { phase: 'pinching', fingers }, outputs };
      }
      fingers.delete(event.id);
      if (fingers.size === 0) return { state: initialTouch, outputs: [] };
      return { state: { phase: 'settling', remaining: fingers.size }, outputs: [] };
    }
    case 'settling':
      if (event.type === 'up' || event.type === 'cancel') return { state: state.remaining <= 1 ? initialTouch : { phase: 'settling', remaining: state.remaining - 1 }, outputs: [] };
      if (event.type === 'down') return { state: { phase: 'settling', remaining: state.remaining + 1 }, outputs: [] };
      return none;
  }
}
