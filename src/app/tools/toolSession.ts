import type { BoxPrompt, Vertex } from '../../engine/types';
import { toolById, type ToolId } from './registry';
import type { ToolDefinition, ToolSettings } from './toolDefinition';
import type { ToolEvent, ToolMachine, ToolOutput } from './types';

/**
 * The canvas tool that is on, with its machine and that machine's state. Switching the tool or a
 * setting starts a fresh session, so a half-drawn box or stroke never leaks into the next tool.
 */
export interface ToolSession {
  readonly tool: ToolDefinition;
  readonly settings: ToolSettings;
  readonly machine: ToolMachine<unknown> | null;
  readonly state: unknown;
}

export interface ToolStep {
  readonly session: ToolSession;
  readonly outputs: readonly ToolOutput[];
  /** Whether the tool takes input of the event's device; a key it does not take goes on to the page's shortcuts. */
  readonly handled: boolean;
}

export function startToolSession(id: ToolId, settings: ToolSettings): ToolSession {
  const tool = toolById(id);
  const machine = tool.machine?.(settings) ?? null;
  return { tool, settings, machine, state: machine?.initial ?? null };
}

const sameSettings = (a: ToolSettings, b: ToolSettings) => (Object.keys(a) as (keyof ToolSettings)[]).every((key) => a[key] === b[key]);

/** The session to keep: `current` while it is still for this tool and settings, else a fresh one. */
export function toolSessionFor(current: ToolSession | null, id: ToolId, settings: ToolSettings): ToolSession {
  if (current && current.tool.id === id && sameSettings(current.settings, settings)) return current;
  return startToolSession(id, settings);
}

const deviceOf = (event: ToolEvent) => ('device' in event ? event.device : null);

/**
 * The one way input reaches a tool: every device's adapter dispatches its normalised events here.
 * Leaving the canvas and cancelling reach every tool; other input only a tool that takes its device.
 */
export function stepToolSession(session: ToolSession, event: ToolEvent): ToolStep {
  const device = deviceOf(event);
  if (!session.machine || (device !== null && !session.tool.devices.includes(device))) return { session, outputs: [], handled: false };
  const { state, outputs } = session.machine.transition(session.state, event);
  return { session: state === session.state ? session : { ...session, state }, outputs, handled: true };
}

/** Several events in order (an adapter may turn one gesture into a press and a release). */
export function stepToolSessionAll(session: ToolSession, events: readonly ToolEvent[]): ToolStep {
  const outputs: ToolOutput[] = [];
  let handled = false;
  for (const event of events) {
    const step = stepToolSession(session, event);
    session = step.session;
    outputs.push(...step.outputs);
    handled ||= step.handled;
  }
  return { session, outputs, handled };
}

/** The box being dragged out, for the canvas to draw; null when no drag is under way. */
export function draggedBox(session: ToolSession): BoxPrompt | null {
  return session.machine?.draggedBox?.(session.state) ?? null;
}

/** The stroke being painted, for the canvas to draw; null when none is. */
export function strokeUnderWay(session: ToolSession): readonly Vertex[] | null {
  return session.machine?.strokeUnderWay?.(session.state) ?? null;
}
