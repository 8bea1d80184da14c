import { promptOf } from '../state/documentOps';
import { isAccepted } from '../../annotations/review';
import { studio, useStudio } from '../state/studioStore';

export type Sheet = 'images' | 'panel' | null;

/**
 * On a phone the canvas takes the screen and the two panels become sheets that this bar opens;
 * on a tablet only the image list does (layout.css hides what a width does not need). Accept sits
 * here too, so a selection can be kept with one tap without opening a sheet.
 */
export function SheetBar({ sheet, onChange }: { sheet: Sheet; onChange(sheet: Sheet): void }) {
  const doc = useStudio((s) => s.history.present);
  const imageId = doc.activeImageId;
  const prompt = imageId ? promptOf(doc, imageId) : null;
  const canAccept = Boolean(prompt && prompt.candidates[prompt.selected]);
  // Accepted objects: proposals are not objects until reviewed (the object list counts them apart).
  const objects = imageId ? (doc.objects[imageId]?.filter(isAccepted).length ?? 0) : 0;
  const toggle = (target: Exclude<Sheet, null>) => onChange(sheet === target ? null : target);
  return (
    <nav className="sheet-bar" aria-label="Panels">
      <button type="button" className="sheet-toggle images" aria-expanded={sheet === 'images'} aria-controls="image-sheet" onClick={() => toggle('images')}>
        Images
      </button>
      {imageId && (
        <button type="button" className="sheet-toggle panel" aria-expanded={sheet === 'panel'} aria-controls="selection-sheet" onClick={() => toggle('panel')}>
          Selection · {objects === 1 ? '1 object' : `${objects} objects`}
        </button>
      )}
      {imageId && canAccept && (
        <button type="button" className="primary sheet-accept" onClick={() => studio.acceptCandidate(imageId)}>
          Accept
        </button>
      )}
    </nav>
  );
}
