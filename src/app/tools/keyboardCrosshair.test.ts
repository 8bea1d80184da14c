import { describe, expect, it } from 'vitest';
import { crosshairKey, crosshairStart, LARGE_STEP_FACTOR, type CrosshairContext, type CrosshairState } from './keyboardCrosshair';

const context: CrosshairContext = { tool: 'positive', imageWidth: 200, imageHeight: 100, step: 2, boxFromCorners: false };
const press = (state: CrosshairState, key: string, shiftKey = false, ctx: Partial<CrosshairContext> = {}) => crosshairKey(state, { key, shiftKey }, { ...context, ...ctx });

describe('keyboard crosshair', () => {
  it('starts at the image center; arrows move it, Shift by a larger step, never off the image', () => {
    let s = crosshairStart(200, 100);
    expect(s.at).toEqual([100, 50]);
    s = press(s, 'ArrowRight').state;
    expect(s.at).toEqual([102, 50]);
    s = press(s, 'ArrowUp', true).state;
    expect(s.at).toEqual([102, 50 - 2 * LARGE_STEP_FACTOR]);
    for (let i = 0; i < 10; i++) s = press(s, 'ArrowLeft', true).state;
    expect(s.at[0]).toBe(0);
    expect(press(s, 'ArrowUp').outputs).toEqual([{ type: 'hover', at: [0, 28] }]);
  });

  it('Enter or Space places a positive point, Shift+Enter a negative one', () => {
    const s = crosshairStart(200, 100);
    expect(press(s, 'Enter').outputs).toEqual([{ type: 'addPoint', point: { x: 100, y: 50, positive: true } }]);
    expect(press(s, ' ').outputs).toEqual([{ type: 'addPoint', point: { x: 100, y: 50, positive: true } }]);
    expect(press(s, 'Enter', true).outputs).toEqual([{ type: 'addPoint', point: { x: 100, y: 50, positive: false } }]);
    expect(press(s, 'Enter', false, { tool: 'negative' }).outputs[0]).toMatchObject({ point: { positive: false } });
  });

  it('Box: the first Enter sets the center, the second (after moving) the corner', () => {
    const box = { tool: 'box' as const };
    let t = press(crosshairStart(200, 100), 'Enter', false, box);
    expect(t.state.boxAnchor).toEqual([100, 50]);
    expect(t.outputs).toEqual([]);
    t = press(t.state, 'Enter', false, box);
    expect(t.outputs).toEqual([]); // no drag yet: not a box
    t = press(t.state, 'ArrowRight', true, box);
    t = press(t.state, 'ArrowDown', true, box);
    t = press(t.state, 'Enter', false, box);
    expect(t.outputs).toEqual([{ type: 'setBox', box: { x: 100, y: 50, width: 40, height: 40 } }]);
    expect(t.state.boxAnchor).toBeNull();
  });

  it('Box by corners: the first Enter is a corner; Esc drops a half-made box', () => {
    const box = { tool: 'box' as const, boxFromCorners: true };
    let t = press(crosshairStart(200, 100), 'Enter', false, box);
    t = press(t.state, 'ArrowRight', true, box);
    t = press(t.state, 'Enter', false, box);
    expect(t.outputs).toEqual([]); // zero height
    t = press(t.state, 'ArrowDown', true, box);
    t = press(t.state, 'Enter', false, box);
    expect(t.outputs).toEqual([{ type: 'setBox', box: { x: 110, y: 60, width: 20, height: 20 } }]);
    const anchored = press(crosshairStart(200, 100), 'Enter', false, box).state;
    expect(press(anchored, 'Escape', false, box).state.boxAnchor).toBeNull();
  });

  it('leaves other keys alone', () => {
    expect(press(crosshairStart(200, 100), 'Tab').handled).toBe(false);
    expect(press(crosshairStart(200, 100), 'Escape').handled).toBe(false);
  });
});
