import { startSegmentEverything } from '../segmentEverythingAction';
import { useTool } from '../state/toolStore';
import type { Command } from './command';

export const segmentEverythingCommand: Command = {
  id: 'segment-everything',
  label: 'Segment everything on this image (Local mode): proposals of every object and region, to review',
  keys: [{ key: 'g' }],
  perform: () => {
    // The text panel shows the run's progress and its Stop.
    if (startSegmentEverything()) useTool.getState().setTool('text');
  },
};
