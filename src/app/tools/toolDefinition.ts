import type { JSX } from 'react';
import type { InputDevice, ToolMachine } from './types';

/** How the box tool draws: from the centre out (the API's centre-anchored box), or corner to corner. */
export type BoxDrawing = 'center' | 'corners';

/** The settings a tool's machine is built with; a change starts the tool afresh. */
export interface ToolSettings {
  readonly boxDrawing: BoxDrawing;
}

/**
 * One tool, everything the studio needs of it: the toolbar button, the key that picks it, its line
 * in the help, what the canvas does with input while it is on. Registered in `registry.ts`; a new
 * tool is one file exporting one of these, and one line there.
 */
export interface ToolDefinition {
  readonly id: string;
  readonly label: string;
  /** The key that picks the tool, either case. */
  readonly key: string;
  /** The toolbar button's tooltip. */
  readonly hint: string;
  /** The help overlay's line for the key. */
  readonly help: string;
  readonly icon: () => JSX.Element;
  /** The canvas cursor while the tool is on (panning overrides it). */
  readonly cursor: 'crosshair' | 'default' | 'none';
  /** The devices whose canvas input the tool takes; the rest is left to the page (a key goes on to the shortcuts). */
  readonly devices: readonly InputDevice[];
  /** The canvas's state machine; absent for a tool that works elsewhere (the text prompt, in its panel). */
  // The state is the machine's own: the session keeps it without reading it.
  machine?(settings: ToolSettings): ToolMachine<any>;
}

export const ALL_DEVICES: readonly InputDevice[] = ['mouse', 'pen', 'touch', 'keyboard'];
/** The editing tools act on outlines and strokes that want a precise pointer. */
export const POINTER_DEVICES: readonly InputDevice[] = ['mouse', 'pen'];
