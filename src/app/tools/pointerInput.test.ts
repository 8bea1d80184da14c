import { describe, expect, it } from 'vitest';
import type { Vertex } from '../../engine/types';
import { crosshairKey, type CrosshairState } from './keyboardCrosshair';
import { pointerToolEvent, touchToolEvents, type ImageView } from './pointerInput';
import { startToolSession, stepToolSessionAll } from './toolSession';
import { MOUSE_LEFT, MOUSE_RIGHT, type ToolEvent } from './types';

// A 200 × 100 photo shown at twice its size: screen = 2 × image.
const view: ImageView = {
  toImage: ([x, y]) => [x / 2, y / 2],
  contains: ([x, y]) => x >= 0 && y >= 0 && x < 200 && y < 100,
  clamp: ([x, y]) => [Math.min(200, Math.max(0, x)), Math.min(100, Math.max(0, y))],
};
const screen = ([x, y]: Vertex): Vertex => [x * 2, y * 2];

/** What each device does for "press here and release", "press, drag to there, release", "exclude here". */
const devices = {
  mouse: {
    click: (at: Vertex, button = MOUSE_LEFT, altKey = false) =>
      [pointerToolEvent({ type: 'down', screen: screen(at), device: 'mouse', button, altKey }, view, false), pointerToolEvent({ type: 'up', screen: screen(at), device: 'mouse' }, view, false)],
    drag: (from: Vertex, to: Vertex) => [
      pointerToolEvent({ type: 'down', screen: screen(from), device: 'mouse', button: MOUSE_LEFT }, view, false),
      pointerToolEvent({ type: 'move', screen: screen(to), device: 'mouse' }, view, true),
      pointerToolEvent({ type: 'up', screen: screen(to), device: 'mouse' }, view, true),
    ],
  },
  pen: {
    click: (at: Vertex) => [pointerToolEvent({ type: 'down', screen: screen(at), device: 'pen', button: MOUSE_LEFT }, view, false), pointerToolEvent({ type: 'up', screen: screen(at), device: 'pen' }, view, false)],
    drag: (from: Vertex, to: Vertex) => [
      pointerToolEvent({ type: 'down', screen: screen(from), device: 'pen', button: MOUSE_LEFT }, view, false),
      pointerToolEvent({ type: 'move', screen: screen(to), device: 'pen' }, view, true),
      pointerToolEvent({ type: 'up', screen: screen(to), device: 'pen' }, view, true),
    ],
  },
  touch: {
    click: (at: Vertex) => touchToolEvents({ type: 'tap', at: screen(at) }, view),
    drag: (from: Vertex, to: Vertex) => [
      ...touchToolEvents({ type: 'dragStart', at: screen(from) }, view),
      ...touchToolEvents({ type: 'dragMove', start: screen(from), at: screen(to) }, view),
      ...touchToolEvents({ type: 'dragEnd', start: screen(from), at: screen(to) }, view),
    ],
  },
  keyboard: {
    /** The crosshair walked to `at` by arrows (steps of 10 image pixels), then Enter. */
    click: (at: Vertex, shiftEnter = false) => keys(at, [{ key: 'Enter', shiftKey: shiftEnter }]),
    drag: (from: Vertex, to: Vertex) => [...keys(from, [{ key: 'Enter', shiftKey: false }]), ...keys(to, [{ key: 'Enter', shiftKey: false }], from)],
  },
};

function keys(to: Vertex, then: { key: string; shiftKey: boolean }[], from: Vertex = [100, 50]): ToolEvent[] {
  let state: CrosshairState = { at: from };
  const events: ToolEvent[] = [];
  const press = (key: string, shiftKey = false) => {
    const result = crosshairKey(state, { key, shiftKey }, { imageWidth: 200, imageHeight: 100, step: 10 });
    state = result.state;
    events.push(...result.events);
  };
  for (let dx = to[0] - from[0]; dx !== 0; dx -= Math.sign(dx) * 10) press(dx > 0 ? 'ArrowRight' : 'ArrowLeft');
  for (let dy = to[1] - from[1]; dy !== 0; dy -= Math.sign(dy) * 10) press(dy > 0 ? 'ArrowDown' : 'ArrowUp');
  for (const k of then) press(k.key, k.shiftKey);
  return events;
}

/** The outputs a tool gives for events, leaving out hover (only the pointers that move over the photo report it). */
function outputsOf(tool: string, events: readonly (ToolEvent | null)[], boxDrawing: 'center' | 'corners' = 'center') {
  const step = stepToolSessionAll(startToolSession(tool, { boxDrawing }), events.filter((e): e is ToolEvent => e !== null));
  return step.outputs.filter((o) => o.type !== 'hover');
}

describe('one input path: every device gives the tools the same outputs', () => {
  const names = ['mouse', 'pen', 'touch', 'keyboard'] as const;

  it.each(names)('%s: a click with a point tool adds its kind of point there', (device) => {
    expect(outputsOf('positive', devices[device].click([40, 30]))).toEqual([{ type: 'addPoint', point: { x: 40, y: 30, positive: true } }]);
    expect(outputsOf('negative', devices[device].click([40, 30]))).toEqual([{ type: 'addPoint', point: { x: 40, y: 30, positive: false } }]);
  });

  it.each(names)('%s: a drag with the Box tool gives the center-anchored box, by either setting', (device) => {
    expect(outputsOf('box', devices[device].drag([100, 50], [140, 80]))).toEqual([{ type: 'setBox', box: { x: 100, y: 50, width: 80, height: 60 } }]);
    expect(outputsOf('box', devices[device].drag([100, 50], [140, 80]), 'corners')).toEqual([{ type: 'setBox', box: { x: 120, y: 65, width: 40, height: 30 } }]);
  });

  it('excluding: right-click and Alt+click, a long press, Shift+Enter', () => {
    const negative = [{ type: 'addPoint', point: { x: 40, y: 30, positive: false } }];
    expect(outputsOf('positive', devices.mouse.click([40, 30], MOUSE_RIGHT))).toEqual(negative);
    expect(outputsOf('positive', devices.mouse.click([40, 30], MOUSE_LEFT, true))).toEqual(negative);
    expect(outputsOf('positive', touchToolEvents({ type: 'longPress', at: screen([40, 30]) }, view))).toEqual(negative);
    expect(outputsOf('positive', devices.keyboard.click([40, 30], true))).toEqual(negative);
  });

  it('the keyboard Box waits after a second Enter on the spot of the first, for a move and a third', () => {
    const events = keys([100, 50], [{ key: 'Enter', shiftKey: false }, { key: 'Enter', shiftKey: false }]);
    expect(outputsOf('box', [...events, ...keys([140, 80], [{ key: 'Enter', shiftKey: false }])])).toEqual([{ type: 'setBox', box: { x: 100, y: 50, width: 80, height: 60 } }]);
  });

  it('touch keeps its own gestures: a drag with a point tool draws a box, a tap with the Box tool adds a point', () => {
    expect(outputsOf('positive', devices.touch.drag([100, 50], [140, 80]))).toEqual([{ type: 'setBox', box: { x: 100, y: 50, width: 80, height: 60 } }]);
    expect(outputsOf('box', devices.touch.click([40, 30]))).toEqual([{ type: 'addPoint', point: { x: 40, y: 30, positive: true } }]);
    // The mouse keeps its own: dragging with a point tool adds the point where it pressed, and no box.
    expect(outputsOf('positive', devices.mouse.drag([100, 50], [140, 80]))).toEqual([{ type: 'addPoint', point: { x: 100, y: 50, positive: true } }]);
  });

  it('off the photo: a press or a tap does nothing, a drag is clamped to the photo', () => {
    expect(pointerToolEvent({ type: 'down', screen: [500, 10], device: 'mouse', button: MOUSE_LEFT }, view, false)).toBeNull();
    expect(pointerToolEvent({ type: 'move', screen: [500, 10], device: 'mouse' }, view, false)).toEqual({ type: 'leave' });
    expect(pointerToolEvent({ type: 'move', screen: [500, 10], device: 'mouse' }, view, true)).toEqual({ type: 'move', at: [200, 5], device: 'mouse' });
    expect(touchToolEvents({ type: 'tap', at: [500, 10] }, view)).toEqual([]);
    expect(touchToolEvents({ type: 'longPress', at: [-4, 10] }, view)).toEqual([]);
    expect(outputsOf('box', devices.touch.drag([150, 50], [250, 80]))).toEqual([{ type: 'setBox', box: { x: 150, y: 50, width: 100, height: 60 } }]);
  });
});
