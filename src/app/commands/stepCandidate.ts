import { promptOf } from '../state/documentOps';
import { currentDocument, studio } from '../state/studioStore';
import type { Command } from './command';

export const stepCandidateCommand: Command = {
  id: 'step-candidate',
  label: 'Previous / next mask candidate',
  keys: [{ key: '[' }, { key: ']' }],
  enabled: () => currentDocument().activeImageId !== null,
  perform: (input) => {
    const doc = currentDocument();
    const imageId = doc.activeImageId!;
    const prompt = promptOf(doc, imageId);
    const n = prompt.candidates.length;
    if (n > 1) studio.selectCandidate(imageId, (prompt.selected + (input.key === ']' ? 1 : n - 1)) % n);
  },
};
