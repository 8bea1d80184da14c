import { fitToScreen } from '../geometry/camera';
import { useCamera } from '../state/cameraStore';
import { currentDocument } from '../state/studioStore';
import { canvasViewSize } from './canvasViewSize';
import type { Command } from './command';

const activeImage = () => {
  const doc = currentDocument();
  return doc.images.find((i) => i.id === doc.activeImageId);
};

export const fitToScreenCommand: Command = {
  id: 'fit-to-screen',
  label: 'Fit to screen',
  keys: [{ key: 'f' }],
  button: { group: 'view', face: 'Fit' },
  enabled: () => activeImage() !== undefined,
  perform: () => {
    const image = activeImage();
    const size = canvasViewSize();
    if (image && size) useCamera.getState().setCamera(fitToScreen(image.width, image.height, size.width, size.height));
  },
};
