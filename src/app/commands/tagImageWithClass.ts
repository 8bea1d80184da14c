import { classAtKey } from '../state/classOps';
import { newId, currentDocument, useStudio } from '../state/studioStore';
import { useTagKey } from '../state/tagKeyStore';
import { tagsOf, toggleTag } from '../state/tagOps';
import { useUi } from '../state/uiStore';
import { DIGIT_KEYS, type Command } from './command';

export const tagImageWithClassCommand: Command = {
  id: 'tag-image-with-class',
  label: 'After I: set or take off the class of that digit as a tag of the image',
  scope: 'tagging',
  keys: DIGIT_KEYS,
  enabled: () => useTagKey.getState().armed,
  perform: (input) => {
    const doc = currentDocument();
    const target = classAtKey(doc, Number(input.key));
    const imageId = doc.activeImageId;
    if (!target || !imageId) return false;
    const had = tagsOf(doc, imageId).some((t) => t.classId === target.id);
    useStudio.getState().apply(had ? 'untag image' : 'tag image', (d) => toggleTag(d, imageId, target.id, () => newId('tag')));
    useUi.getState().setNotice(had ? `Tag “${target.name}” taken off` : `Image tagged “${target.name}”`);
  },
};
