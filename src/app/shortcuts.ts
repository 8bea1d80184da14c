import { fitToScreen, zoomAt } from './geometry/camera';
import { promptOf } from './state/documentOps';
import { currentDocument, studio } from './state/studioStore';
import { useCamera } from './state/cameraStore';
import { useTool } from './state/toolStore';
import { useUi } from './state/uiStore';
import { useEdit } from './state/editStore';
import { EDIT_SHORTCUTS, handleEditShortcut } from './editShortcuts';
import { handleReviewShortcut, REVIEW_SHORTCUTS } from './reviewShortcuts';
import { TOOLS, toolForKey } from './tools/registry';
import { startSegmentEverything } from './segmentEverythingAction';

export interface Shortcut {
  readonly keys: string;
  readonly action: string;
}

/** Listed in the help overlay; the handler below is the single place that implements them. */
export const SHORTCUTS: readonly Shortcut[] = [
  ...TOOLS.map((tool) => ({ keys: tool.key, action: tool.help })),
  { keys: 'Right-click / Alt+click', action: 'Opposite point (exclude with the positive tool)' },
  ...EDIT_SHORTCUTS,
  ...REVIEW_SHORTCUTS,
  { keys: 'G', action: 'Segment everything on this image (Local mode): proposals of every object and region, to review' },
  { keys: 'Enter', action: 'Accept the selected mask as an object' },
  { keys: 'Tab to the canvas, then arrows', action: 'Move the crosshair (Shift: larger steps)' },
  { keys: 'Enter / Space on the canvas', action: 'Positive point at the crosshair (Shift+Enter: negative); Box: center, then corner' },
  { keys: 'Ctrl+Enter on the canvas', action: 'Accept the selected mask' },
  { keys: 'Shift while dragging a box', action: 'Corner to corner instead of from the center (or the reverse)' },
  { keys: 'Touch', action: 'Tap: point · long-press: exclude · drag: box · two fingers: pan and zoom' },
  { keys: '[  ]', action: 'Previous / next mask candidate (brush / eraser: smaller / larger brush)' },
  { keys: 'Esc', action: 'Cancel the box / clear the selection' },
  { keys: 'Ctrl+Z', action: 'Undo' },
  { keys: 'Ctrl+Shift+Z / Ctrl+Y', action: 'Redo' },
  { keys: 'Wheel', action: 'Zoom at the cursor' },
  { keys: 'Space+drag / middle button', action: 'Pan' },
  { keys: 'F', action: 'Fit to screen' },
  { keys: '+  −', action: 'Zoom in / out' },
  { keys: '?', action: 'This help' },
];

function viewSize() {
  const host = document.querySelector('.canvas-host');
  return host ? { width: host.clientWidth, height: host.clientHeight } : null;
}

/** Fields where Ctrl+Z undoes typing: they keep it. A menu, slider or swatch has no undo of its own. */
function editsText(target: HTMLElement): boolean {
  if (target.isContentEditable || target.tagName === 'TEXTAREA') return true;
  return target.tagName === 'INPUT' && !NON_TEXT_INPUTS.has((target as HTMLInputElement).type);
}

const NON_TEXT_INPUTS = new Set(['checkbox', 'radio', 'range', 'color', 'file', 'button', 'submit', 'reset', 'image']);

function handleUndoRedo(e: KeyboardEvent): boolean {
  if (!(e.ctrlKey || e.metaKey) || useUi.getState().page !== 'studio') return false;
  const key = e.key.toLowerCase();
  if (key === 'z' && e.shiftKey) studio.redo();
  else if (key === 'z') studio.undo();
  else if (key === 'y') studio.redo();
  else return false;
  return true;
}

export function handleShortcut(e: KeyboardEvent): boolean {
  const target = e.target as HTMLElement | null;
  // Undo and redo also from a control that keeps the focus after a change (the class menu of an
  // object, say): else Ctrl+Z does nothing there while the Undo button works.
  if (!(target && editsText(target)) && handleUndoRedo(e)) return true;
  if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return false;
  // Enter on a focused button or link activates that control, not the "accept" shortcut, except on
  // a mask candidate: picking one is done by clicking it, and Enter then accepts it as the help says.
  if (e.key === 'Enter' && target && /^(BUTTON|A)$/.test(target.tagName) && !target.closest('[aria-label="Mask candidates"]')) return false;
  const ui = useUi.getState();
  if (ui.page !== 'studio') return false;
  const mod = e.ctrlKey || e.metaKey;
  const key = e.key;
  const doc = currentDocument();
  const imageId = doc.activeImageId;
  if (handleReviewShortcut(e)) return true;
  if (handleEditShortcut(e)) return true;
  if (mod || e.altKey) return false;
  const tool = toolForKey(key);
  if (tool) {
    useTool.getState().setTool(tool.id);
    return true;
  }
  switch (key) {
    case '?':
    case 'h':
    case 'H':
      ui.setHelpOpen(!ui.helpOpen);
      return true;
    case 'Escape':
      if (ui.helpOpen) ui.setHelpOpen(false);
      else if (useEdit.getState().selection.length) useEdit.getState().select([]);
      else if (imageId) studio.clearPrompt(imageId);
      return true;
    case 'Enter':
      if (imageId && promptOf(doc, imageId).candidates.length) {
        studio.acceptCandidate(imageId);
        return true;
      }
      return false;
    case '[':
    case ']': {
      if (!imageId) return false;
      const prompt = promptOf(doc, imageId);
      const n = prompt.candidates.length;
      if (n > 1) studio.selectCandidate(imageId, (prompt.selected + (key === ']' ? 1 : n - 1)) % n);
      return true;
    }
    case 'g':
    case 'G':
      // The text panel shows the run's progress and its Stop.
      if (startSegmentEverything()) useTool.getState().setTool('text');
      return true;
    case 'f':
    case 'F': {
      const image = doc.images.find((i) => i.id === imageId);
      const size = viewSize();
      if (image && size) useCamera.getState().setCamera(fitToScreen(image.width, image.height, size.width, size.height));
      return true;
    }
    case '+':
    case '=':
    case '-': {
      const size = viewSize();
      const { camera, setCamera } = useCamera.getState();
      if (camera && size) setCamera(zoomAt(camera, [size.width / 2, size.height / 2], key === '-' ? 1 / 1.25 : 1.25));
      return true;
    }
    default:
      return false;
  }
}
