import { labelLikeMineBlocked } from '../learn/labelLikeMine';
import { sessionLearner, startLabelLikeMine } from '../learn/learnerServices';
import { currentDocument } from '../state/studioStore';
import { useTool } from '../state/toolStore';
import type { Command } from './command';

export const labelLikeMineCommand: Command = {
  id: 'label-like-mine',
  label: 'Label all like my labels (Local mode): every object of the classes you labelled, on every open image, as proposals to review',
  keys: [{ key: 'l', shift: true }],
  enabled: () => !labelLikeMineBlocked(sessionLearner, currentDocument()),
  perform: () => {
    // The text panel shows the run's progress and its Stop.
    if (startLabelLikeMine()) useTool.getState().setTool('text');
  },
};
