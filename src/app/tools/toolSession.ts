import type { BoxPrompt } from '../../engine/types';
import type { BoxDrawing } from '../state/preferences';
import { boxOfDrag, boxTool, cornerBoxTool, type BoxToolState } from './boxTool';
import { brushTool, eraserTool, type BrushToolState } from './brushTool';
import { negativePointTool, positivePointTool, type PointToolState } from './pointTool';
import { selectTool } from './selectTool';
import type { ToolEvent, ToolId, ToolOutput } from './types';

/**
 * The canvas tool that is on, with its own state: one case per tool, so the state is always the one
 * its machine understands. Switching the tool or the box-drawing setting starts a fresh session, so a
 * half-drawn box or stroke never leaks into the next tool.
 */
export type ToolSession =
  | { readonly tool: 'positive' | 'negative'; readonly state: PointToolState }
  | { readonly tool: 'box'; readonly boxDrawing: BoxDrawing; readonly state: BoxToolState }
  | { readonly tool: 'brush' | 'eraser'; readonly state: BrushToolState }
  | { readonly tool: 'select'; readonly state: null }
  /** Text prompts are typed in the panel: the canvas has nothing to do. */
  | { readonly tool: 'text' };

export interface ToolStep {
  readonly session: ToolSession;
  readonly outputs: readonly ToolOutput[];
}

export function startToolSession(tool: ToolId, boxDrawing: BoxDrawing): ToolSession {
  switch (tool) {
    case 'positive':
    case 'negative':
      return { tool, state: positivePointTool.initial };
    case 'box':
      return { tool, boxDrawing, state: boxTool.initial };
    case 'brush':
    case 'eraser':
      return { tool, state: brushTool.initial };
    case 'select':
      return { tool, state: selectTool.initial };
    case 'text':
      return { tool };
  }
}

/** The session to keep: `current` while it is still for this tool and setting, else a fresh one. */
export function toolSessionFor(current: ToolSession | null, tool: ToolId, boxDrawing: BoxDrawing): ToolSession {
  if (current && current.tool === tool && (current.tool !== 'box' || current.boxDrawing === boxDrawing)) return current;
  return startToolSession(tool, boxDrawing);
}

export function stepToolSession(session: ToolSession, event: ToolEvent): ToolStep {
  switch (session.tool) {
    case 'positive':
    case 'negative': {
      const machine = session.tool === 'positive' ? positivePointTool : negativePointTool;
      const { state, outputs } = machine.transition(session.state, event);
      return { session: { tool: session.tool, state }, outputs };
    }
    case 'box': {
      const machine = session.boxDrawing === 'corners' ? cornerBoxTool : boxTool;
      const { state, outputs } = machine.transition(session.state, event);
      return { session: { ...session, state }, outputs };
    }
    case 'brush':
    case 'eraser': {
      const machine = session.tool === 'brush' ? brushTool : eraserTool;
      const { state, outputs } = machine.transition(session.state, event);
      return { session: { tool: session.tool, state }, outputs };
    }
    case 'select': {
      const { outputs } = selectTool.transition(session.state, event);
      return { session, outputs };
    }
    case 'text':
      return { session, outputs: [] };
  }
}

/** The box being dragged out, for the canvas to draw; null when no drag is under way. */
export function draggedBox(session: ToolSession): BoxPrompt | null {
  return session.tool === 'box' && session.state.phase === 'dragging' ? boxOfDrag(session.state) : null;
}

/** The brush or eraser state, for the canvas to draw the stroke under way. */
export function brushState(session: ToolSession): BrushToolState | null {
  return session.tool === 'brush' || session.tool === 'eraser' ? session.state : null;
}
