import { addPhotoBack, keptPhotoOnScreen, mayAddBack } from '../projects/keptPhotos';
import { useUi } from '../state/uiStore';
import type { Command } from './command';

/** U on a photo another member removed from the project while it held your unsaved edits (projects/keptPhotos.ts). */
export const addPhotoBackCommand: Command = {
  id: 'add-photo-back',
  label: 'Add the photo on screen back to the project, with your changes, after another member removed it',
  keys: [{ key: 'u' }],
  enabled: () => mayAddBack() && keptPhotoOnScreen() !== undefined,
  perform: () => {
    const kept = keptPhotoOnScreen();
    if (!kept || !addPhotoBack(kept.imageId)) return false;
    useUi.getState().setNotice(`${kept.name} is going back into the project with your changes.`);
  },
};
