import { currentDocument, studio } from '../state/studioStore';

/** Opens the image `offset` places from the active one in the image list, when there is one. */
export function stepImage(offset: number): void {
  const doc = currentDocument();
  const index = doc.images.findIndex((i) => i.id === doc.activeImageId);
  const next = doc.images[index + offset];
  if (next) studio.setActiveImage(next.id);
}
