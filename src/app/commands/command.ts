import type { ComponentType } from 'react';

/**
 * One command of the studio (Excalidraw's actions): what it is called, the keys that run it, when it
 * may run, and what it does. Each command is one file of this folder and one line of `registry.ts`;
 * the keyboard shortcuts, the help overlay and the toolbar's command buttons are generated from the
 * registry, so a key or a label is written once, in its command.
 */

/** What a key test reads of a key press (a KeyboardEvent has these). */
export interface KeyInput {
  readonly key: string;
  readonly ctrlKey: boolean;
  readonly metaKey: boolean;
  readonly shiftKey: boolean;
  readonly altKey: boolean;
}

/**
 * A key with its modifiers. Letters match either case. `mod` is Ctrl (Cmd on a Mac) and must match;
 * Alt never matches; `shift` is checked only when given, since keys like `?` and `+` need it on most
 * keyboards.
 */
export interface Chord {
  readonly key: string;
  readonly mod?: boolean;
  readonly shift?: boolean;
}

/**
 * Where a command's keys apply: the studio at large, or a mode that takes some keys first (the review
 * queue open, a painting tool on, an image tag being set). Within one scope a key runs one command.
 */
export type CommandScope = 'studio' | 'review' | 'painting' | 'tagging';

/** The toolbar's groups of command buttons, left to right. */
export const TOOLBAR_GROUPS = ['history', 'view', 'help'] as const;
export type ToolbarGroup = (typeof TOOLBAR_GROUPS)[number];

/** A command's toolbar button: the group it stands in, and what it shows besides its label (which names it). */
export interface CommandButton {
  readonly group: ToolbarGroup;
  readonly icon?: ComponentType;
  /** Shown instead of the label where the label is too long for a button ("Fit") or a sign says it ("+"). */
  readonly face?: string;
}

/** What a command said about a key press: `false` declines it, so the key goes on to the next command. */
export type Performed = boolean | void;

export interface Command {
  readonly id: string;
  /** The help overlay's line, and the command's name in menus. */
  readonly label: string;
  readonly keys: readonly Chord[];
  /** Absent: `studio`. */
  readonly scope?: CommandScope;
  /** Absent: no toolbar button. */
  readonly button?: CommandButton;
  /** Whether it may run now; a disabled command never runs, and its key goes on to the next. */
  enabled?(): boolean;
  /** What it would do now ("Undo delete object"), for its button's tooltip; absent: the label. */
  describe?(): string;
  perform(input: KeyInput): Performed;
}

const isLetter = (key: string) => /^[a-z]$/i.test(key);

export function chordMatches(chord: Chord, input: KeyInput): boolean {
  if (input.altKey) return false;
  if ((input.ctrlKey || input.metaKey) !== !!chord.mod) return false;
  if (chord.shift !== undefined && input.shiftKey !== chord.shift) return false;
  return isLetter(chord.key) ? chord.key.toLowerCase() === input.key.toLowerCase() : chord.key === input.key;
}

/** The command's key test: any of its chords. */
export const keyTest = (command: Pick<Command, 'keys'>, input: KeyInput) => command.keys.some((chord) => chordMatches(chord, input));

/** Two chords that some key press matches both. */
export function chordsOverlap(a: Chord, b: Chord): boolean {
  const sameKey = isLetter(a.key) && isLetter(b.key) ? a.key.toLowerCase() === b.key.toLowerCase() : a.key === b.key;
  return sameKey && !!a.mod === !!b.mod && (a.shift === undefined || b.shift === undefined || a.shift === b.shift);
}

const KEY_NAMES: Readonly<Record<string, string>> = { Escape: 'Esc', '-': '−', ' ': 'Space' };

export function chordLabel(chord: Chord): string {
  const key = KEY_NAMES[chord.key] ?? (isLetter(chord.key) ? chord.key.toUpperCase() : chord.key);
  return `${chord.mod ? 'Ctrl+' : ''}${chord.shift ? 'Shift+' : ''}${key}`;
}

/** How the help shows a command's keys: "Ctrl+Shift+Z / Ctrl+Y"; a run of digits as "1 – 9". */
export function keysLabel(keys: readonly Chord[]): string {
  const digits = keys.filter((k) => /^[0-9]$/.test(k.key) && !k.mod && !k.shift);
  const rest = keys.filter((k) => !digits.includes(k)).map(chordLabel);
  const run = digits.length > 2 ? [`${digits[0].key} – ${digits[digits.length - 1].key}`] : digits.map(chordLabel);
  return [...run, ...rest].join(' / ');
}

/** The key press a chord stands for. */
export const pressOf = (chord: Chord): KeyInput => ({ key: chord.key, ctrlKey: !!chord.mod, metaKey: false, shiftKey: !!chord.shift, altKey: false });

/** A button's tooltip: what the command would do now, and the key that does it too. */
export function commandTooltip(command: Command): string {
  const what = command.describe?.() ?? command.label;
  return command.keys.length ? `${what} (${chordLabel(command.keys[0])})` : what;
}

/** A click on a command's button is a press of its first key: the same enabled rule, the same perform. */
export function runFromButton(command: Command): Performed {
  if (command.enabled && !command.enabled()) return false;
  return command.perform(pressOf(command.keys[0] ?? { key: '' }));
}

export const DIGIT_KEYS: readonly Chord[] = Array.from({ length: 9 }, (_, i) => ({ key: String(i + 1) }));

/** Runs the first command, in the list's order, whose key test passes, that is enabled and that does not decline; the command run, or null. */
export function runKeyCommand(commands: readonly Command[], input: KeyInput): Command | null {
  for (const command of commands) {
    if (!keyTest(command, input)) continue;
    if (command.enabled && !command.enabled()) continue;
    if (command.perform(input) === false) continue;
    return command;
  }
  return null;
}
