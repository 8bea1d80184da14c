import { exampleAwareSegmenter } from './inference/exampleLabelling';
import { labelAllImages } from './inference/labelAll';
import { useLabelAll } from './inference/labelAllStore';
import { localTextSegmenter } from './inference/localText';
import { useDetail } from './state/detailStore';
import { useInferenceMode } from './state/inferenceModeStore';
import { currentDocument } from './state/studioStore';
import { useUi } from './state/uiStore';
import { engineSession } from './studioServices';

/**
 * "Label all" (the text panel's button and its key): the prompts on every open image, the current one
 * first, in the background on the browser engine, one run at a time, Local mode only. Its segmenter is
 * composed here, once per run: a class labelled from examples learns as the run goes. False when it did not start.
 */
export function startLabelAll(prompts: readonly string[]): boolean {
  if (useInferenceMode.getState().mode !== 'local') {
    useUi.getState().setNotice('Label all runs in this browser: choose Local (or Server start) inference to use it.');
    return false;
  }
  const doc = currentDocument();
  if (doc.images.length === 0 || prompts.length === 0) return false;
  const tolerance = useDetail.getState().tolerance;
  const segmenter = exampleAwareSegmenter(localTextSegmenter(engineSession, tolerance), engineSession, currentDocument, tolerance);
  return useLabelAll.getState().start((signal, report) => labelAllImages(doc.images, doc.activeImageId, [...prompts], segmenter, signal, report), 'Label all stopped');
}

/** The prompts of the last Label all run of this page (its progress keeps them), for the key that runs them again. */
export const lastLabelAllPrompts = (): readonly string[] => useLabelAll.getState().progress?.prompts ?? [];
