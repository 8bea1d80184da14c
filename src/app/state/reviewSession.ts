/**
 * Tests only: a studio with proposals to review, loaded into the one document store — image a with
 * p1 (90 %) and p2 (50 %), image b with p3 (95 %), all from a text prompt; a is shown.
 */
import { addImage, addObjects } from './documentOps';
import { useEdit } from './editStore';
import { emptyDocument } from './model';
import { type Annotation } from '../../annotations/annotation';
import { proposedBy, reviewStateOf } from '../../annotations/review';
import { WHOLE_QUEUE } from './reviewOps';
import { useReview } from './reviewStore';
import { currentDocument, useStudio } from './studioStore';
import { useTool } from './toolStore';

export const square = (x: number): Annotation['polygons'] => [{ outer: [[x, 0], [x + 10, 0], [x + 10, 10], [x, 10]], holes: [] }];

const proposal = (id: string, confidence: number): Omit<Annotation, 'color'> => ({
  id,
  label: id,
  classId: null,
  confidence,
  visible: true,
  polygons: square(confidence * 50),
  source: 'text',
  review: proposedBy('text-prompt'),
});

/** Loads the session and resets the view state review and editing keep (closed, the whole queue, 80 %, no decisions, nothing selected, Select tool). */
export function loadReviewSession(): void {
  let doc = addImage(addImage(emptyDocument(), { id: 'a', name: 'a.png', width: 100, height: 100 }), { id: 'b', name: 'b.png', width: 100, height: 100 });
  doc = addObjects(doc, 'a', [proposal('p1', 0.9), proposal('p2', 0.5)]);
  doc = addObjects(doc, 'b', [proposal('p3', 0.95)]);
  useStudio.getState().load({ ...doc, activeImageId: 'a' });
  useReview.setState({ view: WHOLE_QUEUE, decisions: new Map(), reclassed: new Set(), picking: false });
  useReview.getState().setOpen(false);
  useReview.getState().setThreshold(0.8);
  useEdit.getState().select([]);
  useTool.getState().setTool('select');
}

export const stateOf = (imageId: string, id: string) => reviewStateOf(currentDocument().objects[imageId].find((o) => o.id === id)!);
export const shownProposal = () => useReview.getState().current?.objectId ?? null;
