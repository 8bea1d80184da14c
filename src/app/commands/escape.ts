import { useEdit } from '../state/editStore';
import { currentDocument, studio } from '../state/studioStore';
import { useUi } from '../state/uiStore';
import type { Command } from './command';

export const escapeCommand: Command = {
  id: 'escape',
  label: 'Close help, else clear the selection, else cancel the box and the prompt',
  keys: [{ key: 'Escape' }],
  perform: () => {
    const ui = useUi.getState();
    const imageId = currentDocument().activeImageId;
    if (ui.helpOpen) ui.setHelpOpen(false);
    else if (useEdit.getState().selection.length) useEdit.getState().select([]);
    else if (imageId) studio.clearPrompt(imageId);
  },
};
