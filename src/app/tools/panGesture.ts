import type { Vertex } from '../../engine/types';
import { MOUSE_LEFT, MOUSE_MIDDLE } from './types';

/** Panning takes over from the active tool while Space is held or the middle button is down. */
export type PanState = { readonly phase: 'idle' } | { readonly phase: 'ready' } | { readonly phase: 'panning'; readonly last: Vertex; readonly resumeReady: boolean };

export type PanEvent =
  | { type: 'spaceDown' }
  | { type: 'spaceUp' }
  | { type: 'down'; screen: Vertex; button: number }
  | { type: 'move'; screen: Vertex }
  | { type: 'up' };

export function panTransition(state: PanState, event: PanEvent): { state: PanState; delta: Vertex | null; captured: boolean } {
  switch (event.type) {
    case 'spaceDown':
      return { state: state.phase === 'idle' ? { phase: 'ready' } : state, delta: null, captured: false };
    case 'spaceUp':
      if (state.phase === 'panning') return { state: { ...state, resumeReady: false }, delta: null, captured: false };
      return { state: { phase: 'idle' }, delta: null, captured: false };
    case 'down':
      if (event.button === MOUSE_MIDDLE || (state.phase === 'ready' && event.button === MOUSE_LEFT)) {
        return { state: { phase: 'panning', last: event.screen, resumeReady: state.phase === 'ready' }, delta: null, captured: true };
      }
      return { state, delta: null, captured: state.phase === 'ready' };
    case 'move':
      if (state.phase !== 'panning') return { state, delta: null, captured: state.phase === 'ready' };
      return {
        state: { ...state, last: event.screen },
        delta: [event.screen[0] - state.last[0], event.screen[1] - state.last[1]],
        captured: true,
      };
    case 'up':
      if (state.phase !== 'panning') return { state, delta: null, captured: state.phase === 'ready' };
      return { state: state.resumeReady ? { phase: 'ready' } : { phase: 'idle' }, delta: null, captured: true };
  }
}

export function isPanCapturing(state: PanState): boolean {
  return state.phase !== 'idle';
}
