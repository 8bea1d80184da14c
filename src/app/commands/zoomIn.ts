import type { Command } from './command';
import { canZoom, ZOOM_STEP, zoomAtViewCentre } from './zoomView';

export const zoomInCommand: Command = {
  id: 'zoom-in',
  label: 'Zoom in',
  keys: [{ key: '+' }, { key: '=' }],
  button: { group: 'view', face: '+' },
  enabled: canZoom,
  perform: () => zoomAtViewCentre(ZOOM_STEP),
};
