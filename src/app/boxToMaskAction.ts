import { isBox } from '../annotations/annotation';
import { edits, liveSelection } from './state/editActions';
import { useDetail } from './state/detailStore';
import { useInferenceMode } from './state/inferenceModeStore';
import { currentDocument } from './state/studioStore';
import { useUi } from './state/uiStore';
import { engineSession } from './studioServices';

/**
 * Box → mask on the selected box: SAM's box prompt on the box (the engine's predict, one mask), and
 * the box replaced by that mask in one undo step. Runs on this browser's engine (as Segment
 * everything does); false when it did not run.
 */
export async function convertSelectedBoxToMask(): Promise<boolean> {
  const doc = currentDocument();
  const image = doc.images.find((i) => i.id === doc.activeImageId);
  const [id] = liveSelection(doc);
  const target = image && id ? doc.objects[image.id]?.find((o) => o.id === id) : undefined;
  if (!image || !target || !isBox(target)) return false;
  if (useInferenceMode.getState().mode !== 'local') {
    useUi.getState().setNotice('Box → mask runs in this browser: choose Local (or Server start) inference to use it.');
    return false;
  }
  const [x, y, width, height] = target.box;
  const tolerance = useDetail.getState().tolerance;
  try {
    const [best] = await engineSession.predict(image.id, { box: { x: x + width / 2, y: y + height / 2, width, height } }, { tolerance, multimask: false, mirrorAverage: false });
    if (!best || best.polygons.length === 0) {
      useUi.getState().setNotice('No mask found in the box.');
      return false;
    }
    edits.replaceBoxByMask(image.id, target.id, best);
    return true;
  } catch (error) {
    useUi.getState().setNotice(`Box → mask failed: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
}
