import { segmentEverythingOnImage } from './inference/segmentEverything';
import { useDetail } from './state/detailStore';
import { useEverything } from './inference/everythingStore';
import { useInferenceMode } from './state/inferenceModeStore';
import { currentDocument } from './state/studioStore';
import { useUi } from './state/uiStore';
import { engineSession } from './studioServices';

/**
 * "Segment everything" on the current image (the text panel's button and its key): runs in the
 * background on the browser engine, one run at a time, Local mode only (a notice says so in Remote
 * mode). False when it did not start.
 */
export function startSegmentEverything(): boolean {
  const doc = currentDocument();
  const image = doc.images.find((i) => i.id === doc.activeImageId);
  if (useInferenceMode.getState().mode !== 'local') {
    useUi.getState().setNotice('Segment everything runs in this browser: choose Local (or Server start) inference to use it.');
    return false;
  }
  if (!image) return false;
  const tolerance = useDetail.getState().tolerance;
  return useEverything.getState().start((signal, report) => segmentEverythingOnImage(engineSession, image, { tolerance }, signal, report), 'Segment everything stopped');
}
