import { leftOutNote } from '../inference/objectDedupe';
import { useLabelAll } from '../inference/labelAllStore';
import { startLabelAll } from '../labelAllAction';
import { useStudio } from '../state/studioStore';
import { parsePrompts, validatePrompts } from '../tools/textTool';
import { RunProgress } from './RunProgress';

/** The button that runs the typed prompts on every open image (labelAllAction.ts), with progress, Stop, and what it added. */
export function LabelAllControl({ draft, busy }: { draft: string; busy: boolean }) {
  const images = useStudio((s) => s.history.present.images.length);
  const running = useLabelAll((s) => s.controller !== null);
  const prompts = parsePrompts(draft);
  const invalid = validatePrompts(prompts);

  const start = () => {
    if (!invalid) startLabelAll(prompts);
  };

  return (
    <div className="label-all" role="group" aria-label="Label all images">
      <button type="button" className="wide" disabled={running || busy || !!invalid} onClick={start} title="Run these prompts on every open image, this one first; the results arrive as proposals to review">
        Label all {images} open image{images === 1 ? '' : 's'} · <span className="cost">free · local</span>
      </button>
      <LabelAllProgress />
    </div>
  );
}

/** The run's line (what it does, how far, Stop) and how it ended; also shown outside the text panel while it runs (BackgroundRuns.tsx). */
export function LabelAllProgress() {
  const progress = useLabelAll((s) => s.progress);
  const running = useLabelAll((s) => s.controller !== null);
  const error = useLabelAll((s) => s.error);
  return (
    <>
      {progress && (
        <RunProgress
          testId="label-all-progress"
          running={running}
          max={progress.total}
          value={progress.done}
          label="Label all progress"
          stopTitle="Stop after the image in progress (its answer is dropped)"
          onStop={() => useLabelAll.getState().stop()}
        >
          {running ? `Labelling “${progress.prompts.join(', ')}”: ${progress.done} of ${progress.total} images` : `${progress.stopped ? 'Stopped' : 'Done'}: ${progress.done} of ${progress.total} images`}
          {` · ${progress.added} proposal${progress.added === 1 ? '' : 's'} to review`}
          {running && progress.working ? ` · now ${progress.working}` : ''}
          {!running ? leftOutNote(progress.leftOut) : ''}
        </RunProgress>
      )}
      {error && <p className="error">{error}</p>}
    </>
  );
}
