import { beforeEach, describe, expect, it } from 'vitest';
import { handleShortcut } from '../shortcuts';
import { addClass } from '../state/classOps';
import { loadReviewSession } from '../state/reviewSession';
import { currentDocument, studio, useStudio } from '../state/studioStore';
import { tagClassesOf } from '../state/tagOps';
import { chordLabel, chordsOverlap, commandTooltip, keysLabel, keyTest, pressOf, runFromButton, runKeyCommand, TOOLBAR_GROUPS, type Command, type KeyInput } from './command';
import { COMMANDS, commandHelpRows, toolbarCommands } from './registry';
import { redoCommand } from './redo';
import { undoCommand } from './undo';
const scopeOf = (c: Command) => c.scope ?? 'studio';

describe('the command registry', () => {
  it('generates the help with every command once, each with every key its key test takes', () => {
    const ids = COMMANDS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    const rows = commandHelpRows();
    expect(rows).toHaveLength(COMMANDS.length);
    COMMANDS.forEach((command, i) => {
      expect(rows[i].action).toBe(command.label);
      for (const chord of command.keys) {
        const shown = /^[1-9]$/.test(chord.key) ? '1 – 9' : chordLabel(chord);
        expect(rows[i].keys, command.id).toContain(shown);
      }
    });
  });

  it('lists no key twice within a scope: the help never shows one key for two studio commands', () => {
    for (const scope of new Set(COMMANDS.map(scopeOf))) {
      const labels = COMMANDS.filter((c) => scopeOf(c) === scope).flatMap((c) => c.keys.map(chordLabel));
      expect(new Set(labels).size, scope).toBe(labels.length);
    }
  });

  it('maps every key press of a command to exactly that command within its scope', () => {
    for (const command of COMMANDS) {
      for (const chord of command.keys) {
        const takers = COMMANDS.filter((other) => scopeOf(other) === scopeOf(command) && keyTest(other, pressOf(chord)));
        expect(takers.map((c) => c.id), `${command.id} ${chordLabel(chord)}`).toEqual([command.id]);
        const overlapping = COMMANDS.filter((other) => other !== command && scopeOf(other) === scopeOf(command) && other.keys.some((k) => chordsOverlap(k, chord)));
        expect(overlapping.map((c) => c.id), `${command.id} ${chordLabel(chord)}`).toEqual([]);
      }
    }
  });

  it('shows a run of digits as one range and modifiers in order', () => {
    expect(keysLabel([{ key: 'z', mod: true, shift: true }, { key: 'y', mod: true }])).toBe('Ctrl+Shift+Z / Ctrl+Y');
    expect(keysLabel(Array.from({ length: 9 }, (_, i) => ({ key: String(i + 1) })))).toBe('1 – 9');
  });
});

describe('the toolbar from the registry', () => {
  it('has a button for each command that asks for one, in the registry order, and for no other', () => {
    expect(TOOLBAR_GROUPS.map((group) => toolbarCommands(group).map((c) => c.id))).toEqual([['undo', 'redo'], ['zoom-out', 'zoom-in', 'fit-to-screen'], ['help']]);
  });

  it("names each button's key in its tooltip, as the help does", () => {
    for (const command of TOOLBAR_GROUPS.flatMap((group) => toolbarCommands(group))) {
      expect(commandTooltip(command), command.id).toMatch(new RegExp(`\\(${chordLabel(command.keys[0]).replace(/[+?]/g, '\\$&')}\\)$`));
    }
  });

  it('undo and redo buttons follow the history: disabled with nothing to do, saying what they would undo', () => {
    useStudio.getState().load(currentDocument());
    expect(undoCommand.enabled!()).toBe(false);
    expect(runFromButton(undoCommand)).toBe(false);
    expect(commandTooltip(undoCommand)).toBe('Nothing to undo (Ctrl+Z)');
    useStudio.getState().apply('add class', (doc) => addClass(doc, 'cat'));
    expect(commandTooltip(undoCommand)).toBe('Undo add class (Ctrl+Z)');
    runFromButton(undoCommand);
    expect(undoCommand.enabled!()).toBe(false);
    expect(commandTooltip(redoCommand)).toBe('Redo add class (Ctrl+Shift+Z)');
    runFromButton(redoCommand);
    expect(useStudio.getState().history.labels).toEqual(['add class']);
  });
});

describe('running a key', () => {
  const ran: string[] = [];
  const command = (id: string, enabled: boolean, declines = false): Command => ({
    id,
    label: id,
    keys: [{ key: 'q' }],
    enabled: () => enabled,
    perform: () => {
      ran.push(id);
      return declines ? false : undefined;
    },
  });
  const q: KeyInput = { key: 'Q', ctrlKey: false, metaKey: false, shiftKey: true, altKey: false };

  it('never runs a disabled command: the key goes on to the next one that takes it', () => {
    ran.length = 0;
    expect(runKeyCommand([command('off', false), command('declines', true, true), command('on', true)], q)?.id).toBe('on');
    expect(ran).toEqual(['declines', 'on']);
    expect(runKeyCommand([command('off', false)], q)).toBeNull();
    expect(ran).toEqual(['declines', 'on']);
  });

  it('takes no key with Alt, and a Ctrl key only for a chord with Ctrl', () => {
    expect(runKeyCommand([command('on', true)], { ...q, altKey: true })).toBeNull();
    expect(runKeyCommand([command('on', true)], { ...q, ctrlKey: true })).toBeNull();
  });
});

describe('image tags from the keyboard', () => {
  const key = (k: string) => handleShortcut({ key: k, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, target: null } as unknown as KeyboardEvent);

  beforeEach(() => {
    loadReviewSession();
    useStudio.getState().load(addClass(addClass(currentDocument(), 'cat'), 'dog'));
  });

  it('I then a digit tags the image with that class; the same again takes it off; undo brings it back', () => {
    expect(key('i')).toBe(true);
    expect(key('2')).toBe(true);
    expect(tagClassesOf(currentDocument(), 'a').map((c) => c.name)).toEqual(['dog']);
    key('i');
    key('2');
    expect(tagClassesOf(currentDocument(), 'a')).toEqual([]);
    studio.undo();
    expect(tagClassesOf(currentDocument(), 'a').map((c) => c.name)).toEqual(['dog']);
  });

  it('a digit without I picks the class, and I is let go by any other key', () => {
    key('1');
    expect(currentDocument().activeClassId).toBe(1);
    key('i');
    key('j');
    key('2');
    expect(tagClassesOf(currentDocument(), 'a')).toEqual([]);
    expect(currentDocument().activeClassId).toBe(2);
  });
});
