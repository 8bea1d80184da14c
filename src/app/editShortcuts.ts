import { classActions, edits } from './state/editActions';
import { brushStep, useEdit } from './state/editStore';
import { currentDocument, studio } from './state/studioStore';
import { useTool } from './state/toolStore';
import type { Shortcut } from './shortcuts';

/** Keys of hand editing, classes and image navigation; listed in the help overlay with the others. */
export const EDIT_SHORTCUTS: readonly Shortcut[] = [
  { keys: 'Wheel while painting', action: 'Brush size' },
  { keys: 'Delete', action: 'Delete the selected vertex, else the selected objects' },
  { keys: 'Ctrl+D', action: 'Duplicate the selected object' },
  { keys: 'M / S', action: 'Merge the selected objects / split the selected object into its parts' },
  { keys: '1 – 9', action: 'Current class (and class of the selected objects)' },
  { keys: 'A / D, PageUp / PageDown', action: 'Previous / next image' },
];

function stepImage(offset: number): void {
  const doc = currentDocument();
  const index = doc.images.findIndex((i) => i.id === doc.activeImageId);
  const next = doc.images[index + offset];
  if (next) studio.setActiveImage(next.id);
}

export function handleEditShortcut(e: KeyboardEvent): boolean {
  const { tool } = useTool.getState();
  const edit = useEdit.getState();
  const mod = e.ctrlKey || e.metaKey;
  if (mod && !e.altKey && !e.shiftKey && (e.key === 'd' || e.key === 'D')) return edits.duplicateSelected() || true;
  if (mod || e.altKey) return false;
  const key = e.key;
  if (/^[1-9]$/.test(key)) return classActions.pickByKey(Number(key));
  switch (key) {
    case 'm':
    case 'M':
      edits.mergeSelected();
      return true;
    case 's':
    case 'S':
      edits.splitSelected();
      return true;
    case 'a':
    case 'A':
    case 'PageUp':
      stepImage(-1);
      return true;
    case 'd':
    case 'D':
    case 'PageDown':
      stepImage(1);
      return true;
    case '[':
    case ']':
      if (tool !== 'brush' && tool !== 'eraser') return false;
      edit.setBrushSize(brushStep(edit.brushSize, key === ']' ? 1 : -1));
      return true;
    case 'Delete':
    case 'Backspace':
      return edits.deleteVertexOrSelection();
    default:
      return false;
  }
}
