import { describe, expect, it } from 'vitest';
import { boxAnnotationMachine, type BoxAnnotationState } from './boxAnnotationTool';
import { toolForKey } from './registry';
import { MOUSE_LEFT, MOUSE_RIGHT, type InputDevice, type ToolEvent, type ToolOutput } from './types';

function run(events: readonly ToolEvent[], state: BoxAnnotationState = boxAnnotationMachine.initial) {
  const outputs: ToolOutput[] = [];
  for (const event of events) {
    const t = boxAnnotationMachine.transition(state, event);
    state = t.state;
    outputs.push(...t.outputs);
  }
  return { state, outputs };
}
const down = (at: [number, number], more: Partial<Extract<ToolEvent, { type: 'down' }>> = {}): ToolEvent => ({ type: 'down', at, device: 'mouse', button: MOUSE_LEFT, ...more });
const move = (at: [number, number], more: { shiftKey?: boolean; device?: InputDevice } = {}): ToolEvent => ({ type: 'move', at, device: 'mouse', ...more });
const up = (at: [number, number], more: { shiftKey?: boolean; device?: InputDevice } = {}): ToolEvent => ({ type: 'up', at, device: 'mouse', ...more });

describe('box annotation tool', () => {
  it('drags corner to corner into one box, whichever way the drag goes', () => {
    expect(run([down([10, 20]), move([30, 30]), up([50, 60])]).outputs).toEqual([{ type: 'addBox', box: { x: 30, y: 40, width: 40, height: 40 } }]);
    expect(run([down([50, 60]), up([10, 20])]).outputs).toEqual([{ type: 'addBox', box: { x: 30, y: 40, width: 40, height: 40 } }]);
  });

  it('Shift anchors the box at its centre, like the prompt box; pressed or released mid-drag it follows', () => {
    expect(run([down([30, 40], { shiftKey: true }), up([50, 60], { shiftKey: true })]).outputs).toEqual([{ type: 'addBox', box: { x: 30, y: 40, width: 40, height: 40 } }]);
    expect(run([down([30, 40]), move([40, 50], { shiftKey: true }), up([50, 60], { shiftKey: true })]).outputs[0]).toEqual({ type: 'addBox', box: { x: 30, y: 40, width: 40, height: 40 } });
  });

  it('shows the box under way, drops a click and one too small, and Escape cancels', () => {
    const dragging = run([down([10, 10]), move([20, 30])]).state;
    expect(boxAnnotationMachine.draggedBox!(dragging)).toEqual({ x: 15, y: 20, width: 10, height: 20 });
    expect(run([down([10, 10]), up([10, 10])]).outputs).toEqual([]);
    expect(run([down([10, 10]), up([12, 30])]).outputs).toEqual([]);
    expect(run([down([10, 10]), move([40, 40]), { type: 'cancel' }, up([40, 40])]).outputs).toEqual([]);
    expect(run([down([10, 10], { button: MOUSE_RIGHT })]).state.phase).toBe('idle');
  });

  it('the keyboard presses at one corner and releases at the other; the other devices wait', () => {
    const key = { device: 'keyboard' as const };
    const pressed = run([down([10, 10], key)]).state;
    expect(run([up([11, 11], key)], pressed).state.phase).toBe('dragging');
    expect(run([move([90, 90]), up([90, 90])], pressed).outputs).toEqual([]);
    expect(run([up([30, 50], key)], pressed).outputs).toEqual([{ type: 'addBox', box: { x: 20, y: 30, width: 20, height: 40 } }]);
  });

  it('has its own key, O, that no other tool takes', () => {
    expect(toolForKey('o')?.id).toBe('box-annotation');
    expect(toolForKey('x')?.id).toBe('box');
  });
});
