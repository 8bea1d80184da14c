import { useEverything } from '../inference/everythingStore';
import { useLabelAll } from '../inference/labelAllStore';
import { useTool } from '../state/toolStore';
import { LabelAllProgress } from './LabelAllControl';
import { LabelLikeMineProgress } from './LabelLikeMineControl';
import { useLabelLikeMine } from '../learn/learnerServices';
import { EverythingProgress } from './SegmentEverythingControl';

/**
 * Label all and Segment everything go on when the user leaves the text panel, where they were
 * started (to review the proposals already in, to fix one with a click): their progress and Stop
 * stay on screen here until the run ends, instead of vanishing with the panel.
 */
export function BackgroundRuns() {
  const tool = useTool((s) => s.tool);
  const labelling = useLabelAll((s) => s.controller !== null);
  const segmenting = useEverything((s) => s.controller !== null);
  const learning = useLabelLikeMine((s) => s.controller !== null);
  if (tool === 'text' || (!labelling && !segmenting && !learning)) return null;
  return (
    <section className="card background-runs label-all" aria-label="Background runs">
      {labelling && <LabelAllProgress />}
      {segmenting && <EverythingProgress />}
      {learning && <LabelLikeMineProgress />}
    </section>
  );
}
