import { leftOutNote } from '../inference/objectDedupe';
import type { EverythingProgress } from '../inference/segmentEverything';
import { startSegmentEverything } from '../segmentEverythingAction';
import { useEverything } from '../inference/everythingStore';
import { RunProgress } from './RunProgress';

function progressText(p: EverythingProgress): string {
  const plural = (n: number) => (n === 1 ? '' : 's');
  if (p.running) {
    const stage = p.planned === 0 ? 'looking for objects' : `${p.decoded} of ${p.planned} prompts`;
    return `Segmenting everything on ${p.imageName}: ${stage} · ${p.found} found so far`;
  }
  return `${p.stopped ? 'Stopped' : 'Done'} on ${p.imageName}: ${p.added} proposal${plural(p.added)} to review${leftOutNote(p.leftOut)}`;
}

/** Segments every object and region of the current image in the background (segmentEverything.ts); progress, Stop, and what it added. */
export function SegmentEverythingControl() {
  const running = useEverything((s) => s.controller !== null);

  return (
    <div className="label-all" role="group" aria-label="Segment everything">
      <button
        type="button"
        className="wide"
        disabled={running}
        onClick={() => startSegmentEverything()}
        title="Propose every object and region of this image (G); the results arrive as proposals to review"
      >
        Segment everything · <span className="cost">free · local</span>
      </button>
      <EverythingProgress />
    </div>
  );
}

/** The run's line (what it does, how far, Stop) and how it ended; also shown outside the text panel while it runs (BackgroundRuns.tsx). */
export function EverythingProgress() {
  const progress = useEverything((s) => s.progress);
  const running = useEverything((s) => s.controller !== null);
  const error = useEverything((s) => s.error);
  return (
    <>
      {progress && (
        <RunProgress
          testId="everything-progress"
          running={running}
          max={progress.planned}
          value={progress.decoded}
          label="Segment everything progress"
          stopTitle="Stop now and keep what was found so far"
          onStop={() => useEverything.getState().stop()}
        >
          {progressText(progress)}
        </RunProgress>
      )}
      {error && <p className="error">{error}</p>}
    </>
  );
}
