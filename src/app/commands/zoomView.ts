import { zoomAt } from '../geometry/camera';
import { useCamera } from '../state/cameraStore';
import { canvasViewSize } from './canvasViewSize';

export const ZOOM_STEP = 1.25;

export const canZoom = () => useCamera.getState().camera !== null;

/** Zooms about the middle of the canvas, where the keyboard and the toolbar have no cursor to zoom at. */
export function zoomAtViewCentre(factor: number): void {
  const size = canvasViewSize();
  const { camera, setCamera } = useCamera.getState();
  if (camera && size) setCamera(zoomAt(camera, [size.width / 2, size.height / 2], factor));
}
