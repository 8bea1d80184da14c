import type { Command } from './command';
import { canZoom, ZOOM_STEP, zoomAtViewCentre } from './zoomView';

export const zoomOutCommand: Command = {
  id: 'zoom-out',
  label: 'Zoom out',
  keys: [{ key: '-' }],
  button: { group: 'view', face: '−' },
  enabled: canZoom,
  perform: () => zoomAtViewCentre(1 / ZOOM_STEP),
};
