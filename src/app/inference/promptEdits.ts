import { LIMITS } from '../../contract/limits';
import { clampBoxToImage } from '../geometry/centerBox';
import type { PromptDocument } from './schedulerPorts';
import type { PromptEdit } from './inferenceScheduler';
import type { ToolOutput } from '../tools/types';
import { promptOf } from '../state/documentOps';
import { edits, liveSelection } from '../state/editActions';
import { currentDocument, studio } from '../state/studioStore';

export type PromptToolOutput = Extract<ToolOutput, { type: 'addPoint' | 'setBox' }>;

function activeImage() {
  const doc = currentDocument();
  return doc.images.find((i) => i.id === doc.activeImageId) ?? null;
}

/**
 * Writes a point or box tool output into the active image's prompt (one undo step each) and says
 * what changed, for the inference scheduler. A click while one object is selected first starts
 * refining that object, continuing from its prompt and logits. Null when nothing was written (no
 * image, or the prompt already holds the API's maximum of points).
 */
export function writePromptEdit(output: PromptToolOutput): PromptEdit | null {
  const image = activeImage();
  if (!image) return null;
  const [refining] = liveSelection();
  if (refining && promptOf(currentDocument(), image.id).targetObjectId !== refining) edits.beginRefine(refining);
  const before = promptOf(currentDocument(), image.id);
  if (output.type === 'addPoint') {
    if (before.points.length >= LIMITS.pointsMax) return null;
    return { imageId: image.id, before, point: output.point, revision: studio.addPoint(image.id, output.point) };
  }
  return { imageId: image.id, before, revision: studio.setBox(image.id, clampBoxToImage(output.box, image.width, image.height)) };
}

/** The studio store as the scheduler's document: reads the present, lands answers through `settle`. */
export const studioPromptDocument: PromptDocument = {
  prompt: (imageId) => promptOf(currentDocument(), imageId),
  image: (imageId) => currentDocument().images.find((i) => i.id === imageId),
  markPending: studio.markPending,
  resolve: studio.resolve,
  applyMirrorPass: studio.applyMirrorPass,
  fail: studio.fail,
};
