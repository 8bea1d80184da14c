import { isTag } from '../../annotations/annotation';
import { isShown } from '../../annotations/review';
import { useEdit } from '../state/editStore';
import { currentDocument } from '../state/studioStore';
import type { Command } from './command';

/** What a click could pick on the active image: drawn objects (visible, not rejected), not the image's tags. */
function selectableObjects() {
  const doc = currentDocument();
  const objects = doc.activeImageId ? (doc.objects[doc.activeImageId] ?? []) : [];
  return objects.filter((o) => o.visible && isShown(o) && !isTag(o));
}

export const selectAllCommand: Command = {
  id: 'select-all',
  label: 'Select every object of the image',
  keys: [{ key: 'a', mod: true, shift: false }],
  enabled: () => selectableObjects().length > 0,
  perform: () => useEdit.getState().select(selectableObjects().map((o) => o.id)),
};
