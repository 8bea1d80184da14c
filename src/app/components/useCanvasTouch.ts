import { useEffect, useRef, type RefObject } from 'react';
import type { Vertex } from '../../engine/types';
import { panBy, zoomAt } from '../geometry/camera';
import { useCamera } from '../state/cameraStore';
import { LATE_AFTER_MS, punctualTimer } from '../tools/punctualTimer';
import { initialTouch, LONG_PRESS_MS, touchTransition, type TouchEvent, type TouchOutput, type TouchState } from '../tools/touchGesture';

export interface TouchHandlers {
  /** Single-finger gestures, in screen pixels of the canvas; pan and pinch move the camera here. */
  onGesture(output: Exclude<TouchOutput, { type: 'pan' } | { type: 'zoom' }>): void;
}

/**
 * Wires finger input on the canvas host to the pure touch state machine. Mouse and pen keep going
 * through the canvas's own mouse handlers. The page takes every touch on the canvas for itself:
 * the pointerdown's default is prevented so no emulated mouse events place a second point, and the
 * touchstart's so the browser makes no gesture of its own out of it. touch-action alone was not
 * enough on a page slow to answer: after a drag on the canvas, Chromium swallowed the next tap
 * (the one on the Selection button) and sent it no click.
 */
export function useCanvasTouch(host: RefObject<HTMLElement | null>, handlers: TouchHandlers): void {
  const latest = useRef(handlers);
  latest.current = handlers;
  useEffect(() => {
    const node = host.current;
    if (!node) return;
    let state: TouchState = initialTouch;
    // How late the last touch event reached us: moves still arriving late mean more may be queued.
    let inputLag = 0;
    const longPressTimer = punctualTimer(
      () => apply({ type: 'tick', time: performance.now() }),
      () => inputLag > LATE_AFTER_MS,
    );
    const apply = (event: TouchEvent) => {
      if (event.type !== 'tick' && event.type !== 'cancel') inputLag = performance.now() - event.time;
      const result = touchTransition(state, event);
      state = result.state;
      for (const output of result.outputs) {
        const camera = useCamera.getState().camera;
        if (output.type === 'pan') {
          if (camera) useCamera.getState().setCamera(panBy(camera, output.delta[0], output.delta[1]));
        } else if (output.type === 'zoom') {
          if (camera) useCamera.getState().setCamera(zoomAt(camera, output.center, output.factor));
        } else latest.current.onGesture(output);
      }
    };
    const local = (e: PointerEvent): Vertex => {
      const rect = node.getBoundingClientRect();
      return [e.clientX - rect.left, e.clientY - rect.top];
    };
    const down = (e: PointerEvent) => {
      if (e.pointerType !== 'touch') return;
      e.preventDefault();
      node.setPointerCapture?.(e.pointerId);
      apply({ type: 'down', id: e.pointerId, at: local(e), time: e.timeStamp });
      longPressTimer.start(LONG_PRESS_MS + 10);
    };
    const move = (e: PointerEvent) => {
      if (e.pointerType !== 'touch') return;
      // A page that was busy gets several moves merged into one event stamped with the last of them:
      // each one counts, at its own time, or a drag begun in time would look like a long press.
      const moves = e.getCoalescedEvents?.() ?? [];
      for (const m of moves.length ? moves : [e]) apply({ type: 'move', id: e.pointerId, at: local(m), time: m.timeStamp });
    };
    const up = (e: PointerEvent) => {
      if (e.pointerType !== 'touch') return;
      apply({ type: 'up', id: e.pointerId, at: local(e), time: e.timeStamp });
      if (state.phase === 'idle') longPressTimer.stop();
    };
    const cancel = (e: PointerEvent) => {
      if (e.pointerType === 'touch') apply({ type: 'cancel', id: e.pointerId });
    };
    const keepTouchSequence = (e: globalThis.TouchEvent) => {
      if (e.cancelable) e.preventDefault();
    };
    node.addEventListener('touchstart', keepTouchSequence, { passive: false });
    node.addEventListener('pointerdown', down);
    node.addEventListener('pointermove', move);
    node.addEventListener('pointerup', up);
    node.addEventListener('pointercancel', cancel);
    return () => {
      longPressTimer.stop();
      node.removeEventListener('touchstart', keepTouchSequence);
      node.removeEventListener('pointerdown', down);
      node.removeEventListener('pointermove', move);
      node.removeEventListener('pointerup', up);
      node.removeEventListener('pointercancel', cancel);
    };
  }, [host]);
}

