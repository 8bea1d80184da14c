import { beforeEach, describe, expect, it } from 'vitest';
import { handleShortcut } from './shortcuts';
import { addClass } from './state/classOps';
import { classActions } from './state/editActions';
import { loadReviewSession } from './state/reviewSession';
import { currentDocument, useStudio } from './state/studioStore';
import { useUi } from './state/uiStore';

/** A key as the window's keydown handler gets it, from the element that has focus. */
const keyFrom = (tagName: string, key: string, mods: { ctrlKey?: boolean; shiftKey?: boolean } = {}) =>
  ({ key, shiftKey: false, ctrlKey: false, metaKey: false, altKey: false, ...mods, target: { tagName, isContentEditable: false } }) as unknown as KeyboardEvent;

const classOfP1 = () => currentDocument().objects.a.find((o) => o.id === 'p1')!.classId;

describe('Ctrl+Z and Ctrl+Y', () => {
  beforeEach(() => {
    loadReviewSession();
    useStudio.getState().load(addClass(currentDocument(), 'bottle'));
    useUi.setState({ page: 'studio' });
  });

  it('undo a class picked in the object list’s class menu while fixing a proposal in Review, though the menu keeps the focus', () => {
    handleShortcut(keyFrom('BODY', 'r'));
    handleShortcut(keyFrom('BODY', 'c'));
    const bottle = currentDocument().classes[0].id;
    classActions.assign('a', ['p1'], bottle); // what the <select> does on change
    expect(classOfP1()).toBe(bottle);
    expect(handleShortcut(keyFrom('SELECT', 'z', { ctrlKey: true }))).toBe(true);
    expect(classOfP1()).toBeNull();
    expect(handleShortcut(keyFrom('SELECT', 'y', { ctrlKey: true }))).toBe(true);
    expect(classOfP1()).toBe(bottle);
  });

  it('leave a text field its own undo, and plain keys in any control alone', () => {
    const bottle = currentDocument().classes[0].id;
    classActions.assign('a', ['p1'], bottle);
    expect(handleShortcut(keyFrom('TEXTAREA', 'z', { ctrlKey: true }))).toBe(false);
    expect(handleShortcut({ ...keyFrom('INPUT', 'z', { ctrlKey: true }), target: { tagName: 'INPUT', type: 'text', isContentEditable: false } } as unknown as KeyboardEvent)).toBe(false);
    expect(classOfP1()).toBe(bottle);
    expect(handleShortcut(keyFrom('SELECT', 'y'))).toBe(false); // type-ahead in the menu, not Review's accept
  });
});
