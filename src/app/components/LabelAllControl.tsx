import { labelAllImages } from '../inference/labelAll';
import { leftOutNote } from '../inference/objectDedupe';
import type { TextSegmenter } from '../inference/textSegmentation';
import { useLabelAll } from '../state/labelAllStore';
import { currentDocument, useStudio } from '../state/studioStore';
import { parsePrompts, validatePrompts } from '../tools/textTool';
import { RunProgress } from './RunProgress';

/** Runs the typed prompts on every open image in the background (labelAll.ts); progress, Stop, and what it added. */
export function LabelAllControl({ draft, segmenter, busy }: { draft: string; segmenter: TextSegmenter; busy: boolean }) {
  const images = useStudio((s) => s.history.present.images.length);
  const progress = useLabelAll((s) => s.progress);
  const running = useLabelAll((s) => s.controller !== null);
  const error = useLabelAll((s) => s.error);
  const prompts = parsePrompts(draft);
  const invalid = validatePrompts(prompts);

  const start = () => {
    const store = useLabelAll.getState();
    if (invalid || store.controller) return;
    const controller = new AbortController();
    store.begin(controller);
    const doc = currentDocument();
    labelAllImages(doc.images, doc.activeImageId, prompts, segmenter, controller.signal, (p) => useLabelAll.getState().report(p))
      .then(() => useLabelAll.getState().end())
      .catch((e: unknown) => useLabelAll.getState().end(`Label all stopped: ${e instanceof Error ? e.message : String(e)}`));
  };

  return (
    <div className="label-all" role="group" aria-label="Label all images">
      <button type="button" className="wide" disabled={running || busy || !!invalid} onClick={start} title="Run these prompts on every open image, this one first; the results arrive as proposals to review">
        Label all {images} open image{images === 1 ? '' : 's'} · <span className="cost">free · local</span>
      </button>
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
    </div>
  );
}
