/**
 * Photos other members add to the open project or remove from it (issue 38), as the event stream
 * announces them. An added photo's record is read (one read of the image list for all the photos
 * announced meanwhile), it joins the document behind the photo on screen with its server thumbnail,
 * its objects follow through the sync and its file in the background. A removed photo leaves the
 * document, unless it holds edits of this person that the server never got: then it stays, outside
 * the project, and the person is told (`keptOutside`). Neither is an undo step of this person
 * (state/remoteChange.ts).
 */
import type { ProjectImage } from '../../contract/projects';
import type { ImageEntry } from '../../annotations/annotation';
import type { ProjectSync } from './projectSync';

const RETRY_MS = 2_000;

export interface RemoteImagePorts {
  readonly sync: Pick<ProjectSync, 'knows' | 'expectImage' | 'release'>;
  /** The project's image list, as the server has it now. */
  listImages(): Promise<ProjectImage[]>;
  /** The studio's id of a project image (its content id). */
  studioId(image: ProjectImage): string;
  /** Whether the document holds the image already (the same photo opened or uploaded here). */
  isOpen(imageId: string): boolean;
  /** Puts the image into the document, with its thumbnail, and fetches its file. */
  show(entry: ImageEntry, image: ProjectImage): void;
  /** Hands the image to the sync, which fetches its objects. */
  adopt(imageId: string, image: ProjectImage): void;
  hide(imageId: string): void;
  /** The removed photo stays here with this person's unsaved edits; `removedBy` names who removed it. */
  keptOutside(imageId: string, removedBy: string | null): void;
  stopped(): boolean;
}

export interface RemoteImages {
  added(serverImageId: string): void;
  removed(serverImageId: string, removedBy: string | null): void;
}

export function followRemoteImages(ports: RemoteImagePorts): RemoteImages {
  const waiting = new Set<string>();
  let reading = false;
  const readArrivals = async (): Promise<void> => {
    if (reading) return;
    reading = true;
    try {
      while (waiting.size && !ports.stopped()) {
        const wanted = new Set(waiting);
        waiting.clear();
        let listed: ProjectImage[];
        try {
          listed = await ports.listImages();
        } catch {
          for (const id of wanted) waiting.add(id);
          setTimeout(() => void readArrivals(), RETRY_MS);
          return;
        }
        if (ports.stopped()) return;
        const found = new Set<string>();
        for (const image of listed) {
          if (!wanted.has(image.id)) continue;
          found.add(image.id);
          const imageId = ports.studioId(image);
          if (!ports.isOpen(imageId)) ports.show({ id: imageId, name: image.name, width: image.width, height: image.height }, image);
          ports.adopt(imageId, image);
        }
        // Removed again before the list was read: its own event takes it away, if it ever came here.
        for (const id of wanted) if (!found.has(id)) ports.sync.release(id);
      }
    } finally {
      reading = false;
    }
  };
  return {
    added(serverImageId) {
      // This studio's own upload, or a photo it has already.
      if (ports.sync.knows(serverImageId)) return;
      ports.sync.expectImage(serverImageId);
      waiting.add(serverImageId);
      void readArrivals();
    },
    removed(serverImageId, removedBy) {
      waiting.delete(serverImageId);
      const released = ports.sync.release(serverImageId);
      if (released?.kept) ports.keptOutside(released.imageId, removedBy);
      else if (released) ports.hide(released.imageId);
    },
  };
}
