import type { Vertex } from '../../engine/types';
import type { TouchOutput } from './touchGesture';
import { MOUSE_LEFT, type InputDevice, type ToolEvent } from './types';

/** Where the photo is on the canvas: screen pixels to image pixels, and the photo's bounds. */
export interface ImageView {
  toImage(screen: Vertex): Vertex;
  contains(at: Vertex): boolean;
  /** The nearest point on the photo. */
  clamp(at: Vertex): Vertex;
}

export interface PointerInput {
  readonly type: 'down' | 'move' | 'up';
  readonly screen: Vertex;
  readonly device: 'mouse' | 'pen';
  readonly button?: number;
  readonly altKey?: boolean;
  readonly shiftKey?: boolean;
}

/**
 * Mouse and pen: a press off the photo does nothing; a move off it is leaving, unless a drag is under
 * way (a box keeps following the pointer, clamped to the photo); a release lands on the photo.
 */
export function pointerToolEvent(input: PointerInput, view: ImageView, dragging: boolean): ToolEvent | null {
  const at = view.toImage(input.screen);
  const { device, shiftKey } = input;
  switch (input.type) {
    case 'down':
      return view.contains(at) ? { type: 'down', at, device, button: input.button ?? MOUSE_LEFT, altKey: input.altKey, shiftKey } : null;
    case 'move':
      return view.contains(at) || dragging ? { type: 'move', at: view.clamp(at), device, shiftKey } : { type: 'leave' };
    case 'up':
      return { type: 'up', at: view.clamp(at), device, shiftKey };
  }
}

export type TouchGesture = Exclude<TouchOutput, { type: 'pan' } | { type: 'zoom' }>;

/**
 * One finger's gesture (touchGesture.ts tells a tap from a long press and a drag) as the tools' events:
 * a tap is a press and a release on the spot, a drag a press, moves and a release. A tap or a long
 * press off the photo does nothing; a drag is clamped to it.
 */
export function touchToolEvents(gesture: TouchGesture, view: ImageView): ToolEvent[] {
  const device: InputDevice = 'touch';
  switch (gesture.type) {
    case 'tap': {
      const at = view.toImage(gesture.at);
      return view.contains(at) ? [{ type: 'down', at, device, button: MOUSE_LEFT }, { type: 'up', at, device }] : [];
    }
    case 'longPress': {
      const at = view.toImage(gesture.at);
      return view.contains(at) ? [{ type: 'longPress', at, device }] : [];
    }
    case 'dragStart':
      return [{ type: 'down', at: view.clamp(view.toImage(gesture.at)), device, button: MOUSE_LEFT }];
    case 'dragMove':
      return [{ type: 'move', at: view.clamp(view.toImage(gesture.at)), device }];
    case 'dragEnd':
      return [{ type: 'up', at: view.clamp(view.toImage(gesture.at)), device }];
    case 'dragCancel':
      return [{ type: 'cancel' }];
  }
}
