import { describe, expect, it } from 'vitest';
import { panTransition, type PanState } from './panGesture';
import { createPromptTool, type PromptToolState } from './promptTool';
import { parsePrompts, textToolInitial, textToolTransition } from './textTool';
import { MOUSE_LEFT, MOUSE_MIDDLE, MOUSE_RIGHT, type InputDevice, type ToolEvent, type ToolMachine } from './types';

const positivePoint = createPromptTool({ positive: true, press: 'point', cornersByDefault: false });
const negativePoint = createPromptTool({ positive: false, press: 'point', cornersByDefault: false });
const boxTool = createPromptTool({ positive: true, press: 'box', cornersByDefault: false });
const cornerBoxTool = createPromptTool({ positive: true, press: 'box', cornersByDefault: true });

function run(machine: ToolMachine<PromptToolState>, events: readonly ToolEvent[], state = machine.initial) {
  const outputs = [];
  for (const event of events) {
    const t = machine.transition(state, event);
    state = t.state;
    outputs.push(...t.outputs);
  }
  return { state, outputs };
}
const down = (at: [number, number], more: Partial<Extract<ToolEvent, { type: 'down' }>> = {}): ToolEvent => ({ type: 'down', at, device: 'mouse', button: MOUSE_LEFT, ...more });
const move = (at: [number, number], more: { shiftKey?: boolean; device?: InputDevice } = {}): ToolEvent => ({ type: 'move', at, device: 'mouse', ...more });
const up = (at: [number, number], more: { shiftKey?: boolean; device?: InputDevice } = {}): ToolEvent => ({ type: 'up', at, device: 'mouse', ...more });

describe('point tools', () => {
  it('a left click adds a point of the tool kind; right-click or Alt flips it', () => {
    expect(run(positivePoint, [down([3, 4])]).outputs).toEqual([{ type: 'addPoint', point: { x: 3, y: 4, positive: true } }]);
    expect(run(positivePoint, [down([3, 4], { button: MOUSE_RIGHT })]).outputs[0]).toMatchObject({ point: { positive: false } });
    expect(run(negativePoint, [down([3, 4])]).outputs[0]).toMatchObject({ point: { positive: false } });
    expect(run(negativePoint, [down([3, 4], { altKey: true })]).outputs[0]).toMatchObject({ point: { positive: true } });
    expect(run(positivePoint, [down([3, 4], { button: MOUSE_MIDDLE })]).outputs).toEqual([]);
    expect(run(positivePoint, [down([3, 4]), up([3, 4])]).outputs).toHaveLength(1);
  });

  it('reports hover for the live preview and clears it on leave', () => {
    const moved = run(positivePoint, [move([1, 2])]);
    expect(moved.outputs).toEqual([{ type: 'hover', at: [1, 2] }]);
    expect(run(positivePoint, [{ type: 'leave' }], moved.state).outputs).toEqual([{ type: 'hover', at: null }]);
  });

  it('by touch: a tap adds the tool kind, a long press always excludes, a drag draws a box', () => {
    const touch = { device: 'touch' as const };
    expect(run(negativePoint, [down([5, 6], touch), up([5, 6], touch)]).outputs).toEqual([{ type: 'addPoint', point: { x: 5, y: 6, positive: false } }]);
    expect(run(positivePoint, [{ type: 'longPress', at: [5, 6], device: 'touch' }]).outputs).toEqual([{ type: 'addPoint', point: { x: 5, y: 6, positive: false } }]);
    expect(run(positivePoint, [down([100, 100], touch), move([120, 110], touch), up([140, 130], touch)]).outputs).toEqual([
      { type: 'setBox', box: { x: 100, y: 100, width: 80, height: 60 } },
    ]);
    // A drag that comes back to where it began is no box, and no point either.
    expect(run(positivePoint, [down([100, 100], touch), move([120, 110], touch), up([101, 100], touch)]).outputs).toEqual([]);
  });
});

describe('center box tool', () => {
  it('press at the center, drag, release: a center-anchored box', () => {
    let t = run(boxTool, [down([100, 100])]);
    expect(t.state).toEqual({ phase: 'dragging', anchor: [100, 100], corner: [100, 100], fromCorner: false, device: 'mouse', moved: false });
    expect(boxTool.draggedBox!(t.state)).toEqual({ x: 100, y: 100, width: 0, height: 0 });
    t = run(boxTool, [move([140, 70])], t.state);
    expect(t.state).toMatchObject({ corner: [140, 70] });
    t = run(boxTool, [up([140, 70])], t.state);
    expect(t.state).toEqual({ phase: 'idle' });
    expect(t.outputs).toEqual([{ type: 'setBox', box: { x: 100, y: 100, width: 80, height: 60 } }]);
    expect(boxTool.draggedBox!(t.state)).toBeNull();
  });

  it('corner to corner: by the setting, or with Shift held while dragging; the output stays center-anchored', () => {
    const box = { type: 'setBox', box: { x: 100, y: 100, width: 80, height: 60 } };
    expect(run(cornerBoxTool, [down([60, 70]), up([140, 130])]).outputs).toEqual([box]);
    const shifted = run(boxTool, [down([60, 70]), move([100, 100], { shiftKey: true })]);
    expect(shifted.state).toMatchObject({ fromCorner: true });
    expect(run(boxTool, [up([140, 130])], shifted.state).outputs).toEqual([box]);
    // Shift with the corner setting draws from the center again.
    expect(run(cornerBoxTool, [down([100, 100], { shiftKey: true }), up([140, 130])]).outputs).toEqual([box]);
  });

  it('ignores a click without a drag and can be cancelled', () => {
    const t = run(boxTool, [down([10, 10])]);
    expect(run(boxTool, [up([11, 10])], t.state)).toEqual({ state: { phase: 'idle' }, outputs: [] });
    expect(run(boxTool, [{ type: 'cancel' }], t.state).state).toEqual({ phase: 'idle' });
  });

  it('a drag belongs to the device that began it', () => {
    const byTouch = run(boxTool, [down([100, 100], { device: 'touch' })]);
    const mouseMoved = run(boxTool, [move([300, 300]), up([300, 300])], byTouch.state);
    expect(mouseMoved).toEqual({ state: byTouch.state, outputs: [] });
  });

  it('by touch: a tap adds a positive point, a long press a negative one', () => {
    expect(run(boxTool, [down([5, 6], { device: 'touch' }), up([5, 6], { device: 'touch' })]).outputs).toEqual([{ type: 'addPoint', point: { x: 5, y: 6, positive: true } }]);
    expect(run(boxTool, [{ type: 'longPress', at: [5, 6], device: 'touch' }]).outputs).toEqual([{ type: 'addPoint', point: { x: 5, y: 6, positive: false } }]);
  });
});

describe('text tool', () => {
  it('splits, trims and de-duplicates prompts', () => {
    expect(parsePrompts(' cup, spoon\ncup ;saucer,, ')).toEqual(['cup', 'spoon', 'saucer']);
  });

  it('refuses an empty submit and runs valid prompts once', () => {
    expect(textToolTransition(textToolInitial, { type: 'submit' }).state).toMatchObject({ error: expect.stringContaining('Type what') });
    const typed = textToolTransition(textToolInitial, { type: 'input', draft: 'cup, spoon' }).state;
    const running = textToolTransition(typed, { type: 'submit' });
    expect(running.run).toEqual(['cup', 'spoon']);
    expect(textToolTransition(running.state, { type: 'submit' }).run).toBeNull();
    expect(textToolTransition(running.state, { type: 'finished' }).state).toEqual({ phase: 'editing', draft: 'cup, spoon', error: null });
  });
});

describe('pan gesture', () => {
  it('space + drag pans and returns to ready', () => {
    let s: PanState = panTransition({ phase: 'idle' }, { type: 'spaceDown' }).state;
    let t = panTransition(s, { type: 'down', screen: [10, 10], button: MOUSE_LEFT });
    expect(t.captured).toBe(true);
    t = panTransition(t.state, { type: 'move', screen: [25, 5] });
    expect(t.delta).toEqual([15, -5]);
    s = panTransition(t.state, { type: 'up' }).state;
    expect(s).toEqual({ phase: 'ready' });
    expect(panTransition(s, { type: 'spaceUp' }).state).toEqual({ phase: 'idle' });
  });

  it('the middle button pans without space; a left click alone passes through to the tool', () => {
    expect(panTransition({ phase: 'idle' }, { type: 'down', screen: [0, 0], button: MOUSE_LEFT }).captured).toBe(false);
    const t = panTransition({ phase: 'idle' }, { type: 'down', screen: [0, 0], button: MOUSE_MIDDLE });
    expect(t.state.phase).toBe('panning');
    expect(panTransition(t.state, { type: 'up' }).state).toEqual({ phase: 'idle' });
  });
});
