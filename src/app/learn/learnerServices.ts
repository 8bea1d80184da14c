/**
 * The session's learner, built once on the studio's stores and engine (as studioServices.ts builds
 * the engine session), and the "Label all like my labels" run on it. Learning follows the document
 * in Local mode only: its descriptors come from the in-browser engine, which Remote mode does not start.
 */
import { create } from 'zustand';
import type { LearnedClassesState } from '../../engine/learn/learnedClasses';
import { interpretPrompt } from '../../engine/text/promptParser';
import { BULK_EVERYTHING_RULE } from '../../engine/everything/segmentEverything';
import { addWithoutDuplicates } from '../inference/objectDedupe';
import { createBackgroundRunStore } from '../state/backgroundRunStore';
import { useDetail } from '../state/detailStore';
import { useInferenceMode } from '../state/inferenceModeStore';
import { currentDocument, useStudio } from '../state/studioStore';
import { useUi } from '../state/uiStore';
import { engineSession } from '../studioServices';
import { labelLikeMine, labelLikeMineBlocked, type LabelLikeMineProgress, type TracedCandidate } from './labelLikeMine';
import { documentLessons } from './lessons';
import { reclassWaiting } from './reclassWaiting';
import { SessionLearner, type LearnedModelState } from './sessionLearner';

/** What the view reads of the learner: the classes it has examples of, and a counter that moves whenever its state changes (to be saved). */
export const useLearnedClasses = create<{ classes: readonly string[]; revision: number }>(() => ({ classes: [], revision: 0 }));

export const sessionLearner = new SessionLearner({
  document: currentDocument,
  describe: (imageId, masks) => engineSession.describeRegions(imageId, masks),
  reclass: (imageId, objectId, change) => useStudio.getState().settle((doc) => reclassWaiting(doc, imageId, objectId, change)),
  changed: () => useLearnedClasses.setState((s) => ({ classes: sessionLearner.taughtClasses(), revision: s.revision + 1 })),
});

useStudio.subscribe((now, before) => {
  if (now.history.present !== before.history.present && useInferenceMode.getState().mode === 'local') sessionLearner.schedule();
});

/** The learned classes as JSON (vectors and weights, never photos): what a server project's sync reads and writes. */
export const learnedModel = (): LearnedModelState => sessionLearner.learnedModel();

/** The learned classes for a dataset or a project: only once a class has been taught. */
export const taughtModel = (): LearnedClassesState | undefined => (sessionLearner.taughtClasses().length ? sessionLearner.learnedModel().model : undefined);

/** The lessons the document on screen teaches, for the objects `which` picks. */
export const lessonsOfDocument = (which?: (objectId: string) => boolean) => documentLessons(currentDocument(), which);

/** A model learned elsewhere takes the learner's place; the document's lessons it does not hold (`known`) are taught into it (Local mode). */
export async function adoptLearnedModel(model: LearnedClassesState | null, known: ReadonlyMap<string, string>): Promise<void> {
  await sessionLearner.adoptModel(model, known);
  if (useInferenceMode.getState().mode === 'local') sessionLearner.schedule();
}

export function setLearnedModel(state: LearnedModelState | null): void {
  sessionLearner.setLearnedModel(state);
  useLearnedClasses.setState((s) => ({ classes: sessionLearner.taughtClasses(), revision: s.revision }));
}

/** Where a "Label all like my labels" run stands. */
export const useLabelLikeMine = createBackgroundRunStore<LabelLikeMineProgress>();

const detectorKnows = (name: string) => interpretPrompt(name).classes.length > 0;

async function candidatesOn(imageId: string, textClasses: readonly string[], tolerance: number, signal: AbortSignal, segmented?: (decoded: number, planned: number) => void): Promise<TracedCandidate[]> {
  const everything = await engineSession.segmentEverything(
    imageId,
    { outline: { tolerance }, options: { rule: BULK_EVERYTHING_RULE } },
    { signal, onEvent: (e) => segmented?.(e.decoded, e.planned) },
  );
  const fromText = textClasses.length ? (await engineSession.segmentText(imageId, textClasses, { tolerance })).results : [];
  return [
    ...everything.proposals.map((p) => ({ mask: p.mask, polygons: p.polygons, quality: p.confidence, ...(p.label === undefined ? {} : { label: p.label, detectorScore: p.detectorScore }) })),
    // Named by the prompt, which is the learned class: a detector's word for it competes with the learned one.
    ...fromText.flatMap((r) => r.instances.map((t) => ({ mask: t.mask, polygons: t.polygons, label: r.text, detectorScore: t.confidence }))),
  ];
}

/** Starts the run (the command and the button); false when it did not start, with a notice saying why. */
export function startLabelLikeMine(): boolean {
  if (useInferenceMode.getState().mode !== 'local') {
    useUi.getState().setNotice('Label all like my labels runs in this browser: choose Local (or Server start) inference to use it.');
    return false;
  }
  const blocked = labelLikeMineBlocked(sessionLearner, currentDocument());
  if (blocked) {
    useUi.getState().setNotice(blocked);
    return false;
  }
  const tolerance = useDetail.getState().tolerance;
  return useLabelLikeMine.getState().start(
    (signal, report) =>
      labelLikeMine(
        sessionLearner,
        {
          document: currentDocument,
          candidates: (image, textClasses, stop, segmented) => candidatesOn(image.id, textClasses, tolerance, stop, segmented),
          describe: (imageId, masks) => engineSession.describeRegions(imageId, masks),
          detectorKnows,
          add: addWithoutDuplicates,
          tolerance,
        },
        signal,
        report,
      ),
    'Label all like my labels stopped',
  );
}
