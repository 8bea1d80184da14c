import { zoomAt } from '../geometry/camera';
import { useCamera } from '../state/cameraStore';
import { canvasViewSize } from './canvasViewSize';
import type { Command } from './command';

export const ZOOM_STEP = 1.25;

export const zoomCommand: Command = {
  id: 'zoom',
  label: 'Zoom in / out',
  keys: [{ key: '+' }, { key: '=' }, { key: '-' }],
  perform: (input) => {
    const size = canvasViewSize();
    const { camera, setCamera } = useCamera.getState();
    if (camera && size) setCamera(zoomAt(camera, [size.width / 2, size.height / 2], input.key === '-' ? 1 / ZOOM_STEP : ZOOM_STEP));
  },
};
