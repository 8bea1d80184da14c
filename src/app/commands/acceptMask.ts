import { promptOf } from '../state/documentOps';
import { currentDocument, studio } from '../state/studioStore';
import type { Command } from './command';

export const acceptMaskCommand: Command = {
  id: 'accept-mask',
  label: 'Accept the selected mask as an object',
  keys: [{ key: 'Enter' }],
  enabled: () => {
    const doc = currentDocument();
    return !!doc.activeImageId && promptOf(doc, doc.activeImageId).candidates.length > 0;
  },
  perform: () => {
    studio.acceptCandidate(currentDocument().activeImageId!);
  },
};
