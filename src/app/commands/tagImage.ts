import { useTagKey } from '../state/tagKeyStore';
import { currentDocument } from '../state/studioStore';
import { useUi } from '../state/uiStore';
import type { Command } from './command';

/** I, then a class's digit: sets or takes off that class as a tag of the whole image (tagImageWithClass.ts). */
export const tagImageCommand: Command = {
  id: 'tag-image',
  label: 'Image tag: then 1 – 9 sets or takes off that class on the whole image',
  keys: [{ key: 'i' }],
  enabled: () => currentDocument().activeImageId !== null && currentDocument().classes.length > 0,
  perform: () => {
    useTagKey.getState().setArmed(true);
    useUi.getState().setNotice('Image tag: press the class’s digit (1 – 9)');
  },
};
