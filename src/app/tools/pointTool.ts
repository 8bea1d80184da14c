import { NegativeIcon, PositiveIcon } from '../icons/icons';
import { createPromptTool } from './promptTool';
import { ALL_DEVICES, type ToolDefinition } from './toolDefinition';

/** A click adds a point; right-click or Alt+click adds the opposite kind. Touch: tap, long-press, drag (promptTool.ts). */
export const positivePointTool: ToolDefinition = {
  id: 'positive',
  label: 'Positive point',
  key: 'P',
  hint: 'Click on the object to include it',
  help: 'Positive point tool',
  icon: PositiveIcon,
  cursor: 'crosshair',
  devices: ALL_DEVICES,
  machine: ({ boxDrawing }) => createPromptTool({ positive: true, press: 'point', cornersByDefault: boxDrawing === 'corners' }),
};

export const negativePointTool: ToolDefinition = {
  id: 'negative',
  label: 'Negative point',
  key: 'N',
  hint: 'Click on a part to exclude it (or right-click with any point tool)',
  help: 'Negative point tool',
  icon: NegativeIcon,
  cursor: 'crosshair',
  devices: ALL_DEVICES,
  machine: ({ boxDrawing }) => createPromptTool({ positive: false, press: 'point', cornersByDefault: boxDrawing === 'corners' }),
};
