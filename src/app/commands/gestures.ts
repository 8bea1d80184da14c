import type { HelpRow } from './registry';

/**
 * What the pointer, touch and the canvas's own keys do: handled by the tools and the canvas (tools/),
 * not by commands, and listed in the help beside the commands.
 */
export const GESTURE_HELP: readonly HelpRow[] = [
  { keys: 'Right-click / Alt+click', action: 'Opposite point (exclude with the positive tool)' },
  { keys: 'Wheel while painting', action: 'Brush size' },
  { keys: 'Tab to the canvas, then arrows', action: 'Move the crosshair (Shift: larger steps)' },
  { keys: 'Enter / Space on the canvas', action: 'Positive point at the crosshair (Shift+Enter: negative); Box: center, then corner' },
  { keys: 'Ctrl+Enter on the canvas', action: 'Accept the selected mask' },
  { keys: 'Shift while dragging a box', action: 'Corner to corner instead of from the center (or the reverse)' },
  { keys: 'Touch', action: 'Tap: point · long-press: exclude · drag: box · two fingers: pan and zoom' },
  { keys: 'Wheel', action: 'Zoom at the cursor' },
  { keys: 'Space+drag / middle button', action: 'Pan' },
];
