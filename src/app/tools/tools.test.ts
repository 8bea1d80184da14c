import { describe, expect, it } from 'vitest';
import { boxTool, cornerBoxTool } from './boxTool';
import { panTransition, type PanState } from './panGesture';
import { negativePointTool, positivePointTool } from './pointTool';
import { parsePrompts, textToolInitial, textToolTransition } from './textTool';
import { MOUSE_LEFT, MOUSE_MIDDLE, MOUSE_RIGHT } from './types';

describe('point tools', () => {
  it('a left click adds a point of the tool kind; right-click or Alt flips it', () => {
    const s = positivePointTool.initial;
    expect(positivePointTool.transition(s, { type: 'down', at: [3, 4], button: MOUSE_LEFT }).outputs).toEqual([
      { type: 'addPoint', point: { x: 3, y: 4, positive: true } },
    ]);
    expect(positivePointTool.transition(s, { type: 'down', at: [3, 4], button: MOUSE_RIGHT }).outputs[0]).toMatchObject({ point: { positive: false } });
    expect(negativePointTool.transition(s, { type: 'down', at: [3, 4], button: MOUSE_LEFT }).outputs[0]).toMatchObject({ point: { positive: false } });
    expect(negativePointTool.transition(s, { type: 'down', at: [3, 4], button: MOUSE_LEFT, altKey: true }).outputs[0]).toMatchObject({ point: { positive: true } });
    expect(positivePointTool.transition(s, { type: 'down', at: [3, 4], button: MOUSE_MIDDLE }).outputs).toEqual([]);
  });

  it('reports hover for the live preview and clears it on leave', () => {
    const moved = positivePointTool.transition(positivePointTool.initial, { type: 'move', at: [1, 2] });
    expect(moved.outputs).toEqual([{ type: 'hover', at: [1, 2] }]);
    expect(positivePointTool.transition(moved.state, { type: 'leave' }).outputs).toEqual([{ type: 'hover', at: null }]);
  });
});

describe('center box tool', () => {
  it('press at the center, drag, release: a center-anchored box', () => {
    let t = boxTool.transition(boxTool.initial, { type: 'down', at: [100, 100], button: MOUSE_LEFT });
    expect(t.state).toEqual({ phase: 'dragging', anchor: [100, 100], corner: [100, 100], fromCorner: false });
    t = boxTool.transition(t.state, { type: 'move', at: [140, 70] });
    expect(t.state).toMatchObject({ corner: [140, 70] });
    t = boxTool.transition(t.state, { type: 'up', at: [140, 70] });
    expect(t.state).toEqual({ phase: 'idle' });
    expect(t.outputs).toEqual([{ type: 'setBox', box: { x: 100, y: 100, width: 80, height: 60 } }]);
  });

  it('corner to corner: by the setting, or with Shift held while dragging; the output stays center-anchored', () => {
    let t = cornerBoxTool.transition(cornerBoxTool.initial, { type: 'down', at: [60, 70], button: MOUSE_LEFT });
    t = cornerBoxTool.transition(t.state, { type: 'up', at: [140, 130] });
    expect(t.outputs).toEqual([{ type: 'setBox', box: { x: 100, y: 100, width: 80, height: 60 } }]);
    t = boxTool.transition(boxTool.initial, { type: 'down', at: [60, 70], button: MOUSE_LEFT });
    t = boxTool.transition(t.state, { type: 'move', at: [100, 100], shiftKey: true });
    expect(t.state).toMatchObject({ fromCorner: true });
    t = boxTool.transition(t.state, { type: 'up', at: [140, 130] });
    expect(t.outputs).toEqual([{ type: 'setBox', box: { x: 100, y: 100, width: 80, height: 60 } }]);
    // Shift with the corner setting draws from the center again.
    t = cornerBoxTool.transition(cornerBoxTool.initial, { type: 'down', at: [100, 100], button: MOUSE_LEFT, shiftKey: true });
    t = cornerBoxTool.transition(t.state, { type: 'up', at: [140, 130] });
    expect(t.outputs).toEqual([{ type: 'setBox', box: { x: 100, y: 100, width: 80, height: 60 } }]);
  });

  it('ignores a click without a drag and can be cancelled', () => {
    let t = boxTool.transition(boxTool.initial, { type: 'down', at: [10, 10], button: MOUSE_LEFT });
    expect(boxTool.transition(t.state, { type: 'up', at: [11, 10] }).outputs).toEqual([]);
    t = boxTool.transition(t.state, { type: 'cancel' });
    expect(t.state).toEqual({ phase: 'idle' });
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
