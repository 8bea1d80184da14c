import { describe, expect, it } from 'vitest';
import { brushState, draggedBox, startToolSession, stepToolSession, toolSessionFor, type ToolSession } from './toolSession';
import { MOUSE_LEFT, MOUSE_RIGHT, type ToolEvent } from './types';

function run(session: ToolSession, events: readonly ToolEvent[]) {
  const outputs = [];
  for (const event of events) {
    const step = stepToolSession(session, event);
    session = step.session;
    outputs.push(...step.outputs);
  }
  return { session, outputs };
}

describe('tool session', () => {
  it('routes events to the machine of the tool that is on', () => {
    expect(run(startToolSession('negative', 'center'), [{ type: 'down', at: [5, 6], button: MOUSE_LEFT }]).outputs).toEqual([
      { type: 'addPoint', point: { x: 5, y: 6, positive: false } },
    ]);
    expect(run(startToolSession('select', 'center'), [{ type: 'down', at: [5, 6], button: MOUSE_LEFT, shiftKey: true }]).outputs).toEqual([
      { type: 'select', at: [5, 6], additive: true },
    ]);
    expect(run(startToolSession('text', 'center'), [{ type: 'down', at: [5, 6], button: MOUSE_LEFT }]).outputs).toEqual([]);
  });

  it('box: the setting picks center or corner drawing; the drag is visible while under way', () => {
    const press: ToolEvent = { type: 'down', at: [100, 100], button: MOUSE_LEFT };
    const center = run(startToolSession('box', 'center'), [press, { type: 'move', at: [140, 130] }]);
    expect(draggedBox(center.session)).toEqual({ x: 100, y: 100, width: 80, height: 60 });
    expect(run(center.session, [{ type: 'up', at: [140, 130] }]).outputs).toEqual([{ type: 'setBox', box: { x: 100, y: 100, width: 80, height: 60 } }]);
    const corners = run(startToolSession('box', 'corners'), [press, { type: 'up', at: [140, 130] }]);
    expect(corners.outputs).toEqual([{ type: 'setBox', box: { x: 120, y: 115, width: 40, height: 30 } }]);
    expect(draggedBox(corners.session)).toBeNull();
  });

  it('brush: the stroke under way is the session state; release gives one stroke', () => {
    const painting = run(startToolSession('eraser', 'center'), [{ type: 'down', at: [1, 1], button: MOUSE_LEFT }, { type: 'move', at: [2, 2] }]);
    expect(brushState(painting.session)).toEqual({ phase: 'painting', path: [[1, 1], [2, 2]] });
    expect(run(painting.session, [{ type: 'up', at: [3, 3] }]).outputs).toEqual([{ type: 'stroke', path: [[1, 1], [2, 2], [3, 3]], erase: true }]);
    expect(brushState(startToolSession('positive', 'center'))).toBeNull();
  });

  it('keeps the session for the same tool and setting; a switch drops a half-drawn box', () => {
    const dragging = run(startToolSession('box', 'center'), [{ type: 'down', at: [10, 10], button: MOUSE_LEFT }]).session;
    expect(toolSessionFor(dragging, 'box', 'center')).toBe(dragging);
    expect(draggedBox(toolSessionFor(dragging, 'box', 'corners'))).toBeNull();
    const point = toolSessionFor(dragging, 'positive', 'center');
    expect(point.tool).toBe('positive');
    expect(run(point, [{ type: 'up', at: [50, 50] }]).outputs).toEqual([]);
    expect(run(point, [{ type: 'down', at: [50, 50], button: MOUSE_RIGHT }]).outputs).toEqual([{ type: 'addPoint', point: { x: 50, y: 50, positive: false } }]);
  });
});
