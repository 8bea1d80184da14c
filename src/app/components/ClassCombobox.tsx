import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import type { ClassDef } from '../../annotations/annotation';
import { matchClasses } from '../state/classMatch';

/** What a person picked: a class, a name for a new class, or one of the combobox's own options. */
export type ClassPick = { readonly classId: number } | { readonly newName: string } | { readonly option: string };

/** An option before the classes ("All classes", "No class"), offered when nothing is typed or its words match. */
export interface ExtraOption {
  readonly key: string;
  readonly label: string;
}

interface Props {
  readonly label: string;
  readonly classes: readonly ClassDef[];
  /** What the field holds when idle (the class it stands for now). */
  readonly placeholder: string;
  readonly extraOptions?: readonly ExtraOption[];
  /** Offer "Create class …" for a typed name no class has. */
  readonly canCreate?: boolean;
  /** Set to take the keyboard (a command asked for it). */
  readonly focusRequested?: boolean;
  onFocusChange?(focused: boolean): void;
  onPick(pick: ClassPick): void;
  /** Esc, or after a pick: where the keyboard goes back to. */
  onDone(): void;
}

interface Option {
  readonly id: string;
  readonly text: string;
  readonly pick: ClassPick;
}

/**
 * Type-ahead over every class (WAI-ARIA combobox with a listbox): typing narrows the list (whole
 * name, prefix, word, substring), arrows move, Enter picks, Esc leaves. A name no class has can
 * become a new class.
 */
export function ClassCombobox({ label, classes, placeholder, extraOptions = [], canCreate = false, focusRequested = false, onFocusChange, onPick, onDone }: Props) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useState('');
  const [expanded, setExpanded] = useState(false);
  const [active, setActive] = useState(0);

  useEffect(() => {
    if (focusRequested) input.current?.focus();
  }, [focusRequested]);

  const typed = text.trim().toLowerCase();
  const matches = matchClasses(classes, text);
  const options: Option[] = [
    ...extraOptions.filter((o) => !typed || o.label.toLowerCase().includes(typed)).map((o) => ({ id: `${id}-x-${o.key}`, text: o.label, pick: { option: o.key } })),
    ...matches.classes.map((c) => ({ id: `${id}-c-${c.id}`, text: c.name, pick: { classId: c.id } })),
    ...(canCreate && matches.newName ? [{ id: `${id}-new`, text: `Create class “${matches.newName}”`, pick: { newName: matches.newName } }] : []),
  ];
  const activeIndex = Math.min(active, options.length - 1);
  const activeOption = expanded && activeIndex >= 0 ? options[activeIndex] : undefined;

  const finish = (pick?: ClassPick) => {
    setText('');
    setExpanded(false);
    setActive(0);
    if (pick) onPick(pick);
    onDone();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    const move = e.key === 'ArrowDown' ? 1 : e.key === 'ArrowUp' ? -1 : 0;
    if (move && options.length) {
      e.preventDefault();
      setExpanded(true);
      setActive(expanded ? (activeIndex + move + options.length) % options.length : 0);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      if (activeOption) finish(activeOption.pick);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      finish();
    }
  };

  const listId = `${id}-list`;
  return (
    <div className="class-combobox">
      <label className="field" htmlFor={`${id}-input`}>
        {label}
      </label>
      <input
        ref={input}
        id={`${id}-input`}
        type="text"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={expanded}
        aria-controls={listId}
        aria-activedescendant={activeOption?.id}
        autoComplete="off"
        spellCheck={false}
        placeholder={placeholder}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setExpanded(true);
          setActive(0);
        }}
        onFocus={() => {
          setExpanded(true);
          onFocusChange?.(true);
        }}
        onBlur={() => {
          setText('');
          setExpanded(false);
          onFocusChange?.(false);
        }}
        onKeyDown={onKeyDown}
      />
      <ul role="listbox" id={listId} aria-label={label} className="class-combobox-list" hidden={!expanded || options.length === 0}>
        {options.map((option, i) => (
          <li
            key={option.id}
            id={option.id}
            role="option"
            aria-selected={i === activeIndex}
            // Keeps the focus in the field, so the pick and its blur do not race.
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => finish(option.pick)}
          >
            {option.text}
          </li>
        ))}
      </ul>
      {expanded && options.length === 0 && <p className="hint small">No class matches “{text.trim()}”.</p>}
    </div>
  );
}
