import { describeMask } from '../a11y/describeMask';
import { emptyPrompt } from '../state/model';
import { countsLine, reviewCounts } from '../state/reviewOps';
import { isShown } from '../../annotations/review';
import { useStudio } from '../state/studioStore';

/** Says each new result to screen readers ("Mask: 12 % of the image, 2 parts"); invisible on screen. */
export function ResultAnnouncer() {
  const doc = useStudio((s) => s.history.present);
  const image = doc.images.find((i) => i.id === doc.activeImageId);
  const prompt = (image && doc.prompts[image.id]) || emptyPrompt();
  const selected = prompt.candidates[prompt.selected];
  const objects = image ? (doc.objects[image.id] ?? []) : [];
  let message = '';
  if (image && selected) message = describeMask(selected.polygons, image.width, image.height, prompt.candidates.length);
  else if (image && prompt.status === 'done' && prompt.candidates.length === 0 && prompt.points.length > 0) message = 'No mask found.';
  else if (image && objects.some(isShown)) message = `${countsLine(reviewCounts(objects))} on this image.`;
  return (
    <div className="visually-hidden" role="status" aria-live="polite" aria-atomic="true" data-testid="result-announcement">
      {message}
    </div>
  );
}
