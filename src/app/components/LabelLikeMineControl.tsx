import { leftOutNote } from '../inference/objectDedupe';
import { labelLikeMineBlocked, type LabelLikeMineProgress as Progress } from '../learn/labelLikeMine';
import { sessionLearner, startLabelLikeMine, useLabelLikeMine, useLearnedClasses } from '../learn/learnerServices';
import { useStudio } from '../state/studioStore';
import { StoreRunProgress } from './RunProgress';

function progressText(p: Progress, running: boolean): string {
  const plural = (n: number) => (n === 1 ? '' : 's');
  const classes = p.classes.length ? ` (${p.classes.join(', ')})` : '';
  const head = running ? `Labelling like your labels${classes}: ${p.done} of ${p.total} steps` : `${p.stopped ? 'Stopped' : 'Done'}: ${p.done} of ${p.total} steps`;
  const segmenting = p.segmented ? ` (segmented ${p.segmented.decoded} of ${p.segmented.planned} regions)` : '';
  return `${head} · ${p.added} proposal${plural(p.added)} to review${running && p.working ? ` · now ${p.working}${segmenting}` : ''}${running ? '' : leftOutNote(p.leftOut)}`;
}

/** "Label all like my labels" (learn/labelLikeMine.ts): disabled, with the reason, until a class has examples. */
export function LabelLikeMineControl() {
  const doc = useStudio((s) => s.history.present);
  // Re-rendered when the learner learns, since the reason and the step times below read it.
  useLearnedClasses((s) => s.revision);
  const running = useLabelLikeMine((s) => s.controller !== null);
  const blocked = labelLikeMineBlocked(sessionLearner, doc);
  return (
    // The learning steps' times, for the Chromium benchmark of a step (e2e/appLearnedClasses.spec.ts).
    <div className="label-all" role="group" aria-label="Label all like my labels" data-learn-step-ms={sessionLearner.stepMs.map((ms) => ms.toFixed(2)).join(',')}>
      <button
        type="button"
        className="wide"
        disabled={running || !!blocked}
        onClick={() => startLabelLikeMine()}
        title={blocked ?? 'Propose every object of the classes you labelled on every open image, this one first (Shift+L); the results arrive as proposals to review'}
      >
        Label all like my labels · <span className="cost">free · local</span>
      </button>
      {blocked && <p className="hint small">{blocked}</p>}
      <LabelLikeMineProgress />
    </div>
  );
}

/** The run's line (what it does, how far, Stop) and how it ended; also shown outside the text panel while it runs (BackgroundRuns.tsx). */
export function LabelLikeMineProgress() {
  return (
    <StoreRunProgress
      store={useLabelLikeMine}
      testId="label-like-mine-progress"
      label="Label all like my labels progress"
      stopTitle="Stop now: the proposals made so far stay; the image in progress gets none"
      steps={(p) => ({ max: p.total, value: p.done })}
      text={progressText}
    />
  );
}
