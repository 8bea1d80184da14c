/**
 * Photos another member removed from the open project while this studio held edits on them that the
 * server never got (ProjectSync.release): they stay here, outside the project, listed in the project
 * panel until the person adds one back (its button, or U on it) or the project closes. Adding back is
 * this person's call, never automatic: the removal was someone else's.
 */
import type { ProjectRole } from '../../contract/projects';
import { currentDocument } from '../state/studioStore';
import { useOpenProject, type KeptPhoto } from './projectStore';

/** The open project's way of uploading a kept photo again with its objects; null while none is followed. */
let addBackToProject: ((imageId: string) => void) | null = null;

/** While a project is followed (projectSession.ts), `addBack` is what adding back does; the returned function ends that. */
export function followKeptPhotos(addBack: (imageId: string) => void): () => void {
  addBackToProject = addBack;
  return () => {
    if (addBackToProject === addBack) addBackToProject = null;
  };
}

export function keepOutside(photo: KeptPhoto): void {
  useOpenProject.setState((s) => ({ keptOutside: [...s.keptOutside.filter((k) => k.imageId !== photo.imageId), photo] }));
}

/** The kept photos still open in the studio (one closed here has nothing left to add back). */
export function keptPhotosOpen(kept: readonly KeptPhoto[], images: readonly { id: string }[]): KeptPhoto[] {
  return kept.filter((k) => images.some((image) => image.id === k.imageId));
}

/** A reviewer may not add photos to a project (the server's roles): the kept photo waits for the owner or an annotator. */
export const roleMayAddBack = (role: ProjectRole | undefined): boolean => role !== 'reviewer';
export const mayAddBack = (): boolean => roleMayAddBack(useOpenProject.getState().open?.role);

/** The photo on screen, when it is one kept outside the project. */
export function keptPhotoOnScreen(): KeptPhoto | undefined {
  const doc = currentDocument();
  return keptPhotosOpen(useOpenProject.getState().keptOutside, doc.images).find((k) => k.imageId === doc.activeImageId);
}

/** Puts the kept photo back into the project, once: it leaves the list before its upload starts. False when there is nothing to add back. */
export function addPhotoBack(imageId: string): boolean {
  const kept = useOpenProject.getState().keptOutside;
  if (!addBackToProject || !mayAddBack() || !kept.some((k) => k.imageId === imageId)) return false;
  useOpenProject.setState({ keptOutside: kept.filter((k) => k.imageId !== imageId) });
  addBackToProject(imageId);
  return true;
}
