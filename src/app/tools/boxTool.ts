import { BoxIcon } from '../icons/icons';
import { createPromptTool } from './promptTool';
import { ALL_DEVICES, type ToolDefinition } from './toolDefinition';

/** Press at the CENTER and drag out; or corner to corner by the setting, Shift flipping it while dragging (promptTool.ts). */
export const boxTool: ToolDefinition = {
  id: 'box',
  label: 'Box',
  key: 'X',
  hint: 'Press at the CENTER of the object and drag outwards (or corner to corner: see the setting, or hold Shift)',
  help: 'Box tool (press at the center, drag out)',
  icon: BoxIcon,
  cursor: 'crosshair',
  devices: ALL_DEVICES,
  machine: ({ boxDrawing }) => createPromptTool({ positive: true, press: 'box', cornersByDefault: boxDrawing === 'corners' }),
};
