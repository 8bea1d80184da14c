import { describe, expect, it } from 'vitest';
import { crosshairKey, crosshairStart, LARGE_STEP_FACTOR, type CrosshairContext, type CrosshairState } from './keyboardCrosshair';
import { MOUSE_LEFT } from './types';

const context: CrosshairContext = { imageWidth: 200, imageHeight: 100, step: 2 };
const press = (state: CrosshairState, key: string, shiftKey = false) => crosshairKey(state, { key, shiftKey }, context);

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
    // The move carries no Shift: on the keyboard it means a larger step, not the box's corner flip.
    expect(press(s, 'ArrowUp', true)).toMatchObject({ events: [{ type: 'move', at: [0, 10], device: 'keyboard' }], moved: true });
  });

  it('Enter or Space presses and releases the crosshair; Shift+Enter as the opposite kind', () => {
    const s = crosshairStart(200, 100);
    const click = (altKey: boolean) => [
      { type: 'down', at: [100, 50], device: 'keyboard', button: MOUSE_LEFT, altKey },
      { type: 'up', at: [100, 50], device: 'keyboard' },
    ];
    expect(press(s, 'Enter').events).toEqual(click(false));
    expect(press(s, ' ').events).toEqual(click(false));
    expect(press(s, 'Enter', true).events).toEqual(click(true));
    expect(press(s, ' ', true).events).toEqual(click(false));
  });

  it('Escape cancels; other keys are not the crosshair\'s', () => {
    expect(press(crosshairStart(200, 100), 'Escape')).toMatchObject({ events: [{ type: 'cancel' }], moved: false });
    expect(press(crosshairStart(200, 100), 'Tab')).toMatchObject({ events: [], moved: false });
  });
});
