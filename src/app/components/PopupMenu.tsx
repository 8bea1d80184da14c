import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { useFocusTrap } from '../a11y/useFocusTrap';

/**
 * A toolbar button that opens a small non-modal dialog: focus moves in, Tab and the arrow keys cycle
 * inside, Esc or a click outside closes it and focus returns to the button. On a phone the dialog is
 * laid out over the screen (layout.css), not inside the scrolling toolbar that would clip it.
 */
export function PopupMenu(props: { label: string; dialogLabel: string; title: string; disabled?: boolean; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const popup = useRef<HTMLDivElement>(null);
  const closeMenu = useCallback(() => setOpen(false), []);
  useFocusTrap(popup, closeMenu, { active: open, arrows: true });

  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => ref.current?.contains(e.target as Node) || setOpen(false);
    window.addEventListener('mousedown', close);
    return () => window.removeEventListener('mousedown', close);
  }, [open]);

  return (
    <div className="menu" ref={ref}>
      <button type="button" aria-haspopup="dialog" aria-expanded={open} disabled={props.disabled} title={props.title} onClick={() => setOpen(!open)}>
        {props.label}
      </button>
      {open && (
        <div ref={popup} className="menu-popup export-dialog" role="dialog" aria-label={props.dialogLabel}>
          {props.children}
        </div>
      )}
    </div>
  );
}

/** Saves bytes as a file through a temporary link. */
export function download(name: string, data: BlobPart, type: string) {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
