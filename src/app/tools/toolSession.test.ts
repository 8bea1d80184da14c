import { describe, expect, it } from 'vitest';
import { TOOLS, toolById, toolForKey } from './registry';
import { draggedBox, startToolSession, stepToolSession, stepToolSessionAll, strokeUnderWay, toolSessionFor } from './toolSession';
import { MOUSE_LEFT, MOUSE_RIGHT, type ToolEvent } from './types';

const center = { boxDrawing: 'center' as const };
const corners = { boxDrawing: 'corners' as const };
const down = (at: [number, number], more: Partial<Extract<ToolEvent, { type: 'down' }>> = {}): ToolEvent => ({ type: 'down', at, device: 'mouse', button: MOUSE_LEFT, ...more });

describe('tool registry', () => {
  it('holds every tool once, each with its own key', () => {
    expect(TOOLS.map((t) => t.id)).toEqual(['positive', 'negative', 'box', 'text', 'select', 'box-annotation', 'brush', 'eraser']);
    expect(new Set(TOOLS.map((t) => t.key.toLowerCase())).size).toBe(TOOLS.length);
    expect(toolForKey('x')?.id).toBe('box');
    expect(toolForKey('X')?.id).toBe('box');
    expect(toolForKey('q')).toBeUndefined();
    expect(() => toolById('lasso')).toThrow(/no tool "lasso"/);
  });
});

describe('tool session', () => {
  it('routes events to the machine of the tool that is on', () => {
    expect(stepToolSession(startToolSession('negative', center), down([5, 6])).outputs).toEqual([{ type: 'addPoint', point: { x: 5, y: 6, positive: false } }]);
    expect(stepToolSession(startToolSession('select', center), down([5, 6], { shiftKey: true })).outputs).toEqual([{ type: 'select', at: [5, 6], additive: true }]);
    expect(stepToolSession(startToolSession('text', center), down([5, 6]))).toMatchObject({ outputs: [], handled: false });
  });

  it('gives a tool only the devices it takes: the editing tools leave touch and the keyboard alone', () => {
    for (const id of ['select', 'brush', 'eraser']) {
      expect(stepToolSession(startToolSession(id, center), down([5, 6], { device: 'keyboard' }))).toMatchObject({ outputs: [], handled: false });
      expect(stepToolSession(startToolSession(id, center), down([5, 6], { device: 'touch' })).handled).toBe(false);
      expect(stepToolSession(startToolSession(id, center), down([5, 6], { device: 'pen' })).handled).toBe(true);
    }
    expect(stepToolSession(startToolSession('box', center), down([5, 6], { device: 'keyboard' })).handled).toBe(true);
  });

  it('box: the setting picks center or corner drawing; the drag is visible while under way', () => {
    const dragging = stepToolSessionAll(startToolSession('box', center), [down([100, 100]), { type: 'move', at: [140, 130], device: 'mouse' }]);
    expect(draggedBox(dragging.session)).toEqual({ x: 100, y: 100, width: 80, height: 60 });
    expect(stepToolSession(dragging.session, { type: 'up', at: [140, 130], device: 'mouse' }).outputs).toEqual([{ type: 'setBox', box: { x: 100, y: 100, width: 80, height: 60 } }]);
    const byCorners = stepToolSessionAll(startToolSession('box', corners), [down([100, 100]), { type: 'up', at: [140, 130], device: 'mouse' }]);
    expect(byCorners.outputs).toEqual([{ type: 'setBox', box: { x: 120, y: 115, width: 40, height: 30 } }]);
    expect(draggedBox(byCorners.session)).toBeNull();
  });

  it('brush: the stroke under way is the session state; release gives one stroke', () => {
    const painting = stepToolSessionAll(startToolSession('eraser', center), [down([1, 1]), { type: 'move', at: [2, 2], device: 'mouse' }]);
    expect(strokeUnderWay(painting.session)).toEqual([[1, 1], [2, 2]]);
    expect(stepToolSession(painting.session, { type: 'up', at: [3, 3], device: 'mouse' }).outputs).toEqual([{ type: 'stroke', path: [[1, 1], [2, 2], [3, 3]], erase: true }]);
    expect(strokeUnderWay(startToolSession('positive', center))).toBeNull();
  });

  it('keeps the session for the same tool and setting; a switch drops a half-drawn box', () => {
    const dragging = stepToolSession(startToolSession('box', center), down([10, 10])).session;
    expect(toolSessionFor(dragging, 'box', { boxDrawing: 'center' })).toBe(dragging);
    expect(draggedBox(toolSessionFor(dragging, 'box', corners))).toBeNull();
    const point = toolSessionFor(dragging, 'positive', center);
    expect(point.tool.id).toBe('positive');
    expect(stepToolSession(point, { type: 'up', at: [50, 50], device: 'mouse' }).outputs).toEqual([]);
    expect(stepToolSession(point, down([50, 50], { button: MOUSE_RIGHT })).outputs).toEqual([{ type: 'addPoint', point: { x: 50, y: 50, positive: false } }]);
  });
});
