/**
 * A shared project kept in step with the studio's document: after each change the images whose
 * objects differ from what the server holds are written, each with the revision it was made on.
 * A stale write (someone wrote first) is merged per object with the server's objects
 * (objectMerge.ts) and written again on the server's revision; the merge lands in the document and
 * the state says "conflict", naming the objects kept twice. Nothing is lost on either side. Images
 * added to the session are uploaded; images closed in the session stay in the project. Images other
 * members add or remove arrive as events: the studio adopts or releases them here.
 *
 * Everything outside the sync — the document, the API, the photo bytes, the state shown — is a port,
 * so tests run it against a real server in Node.
 */
import type { AnnotationObject, Project, ProjectClass, ProjectImage } from '../../contract/projects';
import type { Annotation } from '../../annotations/annotation';
import type { StudioDocument } from '../state/model';
import { canonicalObjects, fromWire, toWire } from '../../annotations/wire';
import { projectDocument, toProjectClasses } from './annotationMapping';
import { mergeObjects } from '../../annotations/merge';
import { isAssignedTo, myImagesFirst } from './myImages';
import { RevisionConflict, type ProjectApi } from './projectApi';

/** `error`: the server refused a write (a role that may not edit, say); the message says why. */
export type SyncState = 'saved' | 'syncing' | 'offline' | 'conflict' | 'error';

export interface SyncedImage {
  readonly serverId: string;
  revision: number;
  /** What the server holds at `revision`, in the canonical form the studio writes (`canonicalWire`). */
  base: AnnotationObject[];
  /** The document's object list last found equal to `base`: the same list again needs no comparison (the document is immutable). */
  seen?: readonly Annotation[];
}

export interface ProjectSyncPorts {
  readonly api: ProjectApi;
  document(): Pick<StudioDocument, 'images' | 'objects' | 'classes'>;
  /** Lands merged objects in the document. */
  replaceObjects(imageId: string, objects: Annotation[]): void;
  /** The photo's file as Base64 (for an image added to the session). */
  imageBase64(imageId: string): Promise<string>;
  status(state: SyncState, message: string | null): void;
  /** Someone wrote an image this studio does not have (added to the project since it was opened). */
  imageNotOpen?(serverImageId: string): void;
}

const sameObjects = (a: readonly AnnotationObject[], b: readonly AnnotationObject[]) => JSON.stringify(a) === JSON.stringify(b);
const sameClasses = (a: readonly ProjectClass[], b: readonly ProjectClass[]) => JSON.stringify(a) === JSON.stringify(b);
const MAX_MERGES = 3;
const NO_OBJECTS: readonly Annotation[] = [];

export class ProjectSync {
  private running = false;
  private again = false;
  /** Images someone changed on the server (by server id): the revision announced, fetched in the next round. */
  private readonly announced = new Map<string, number>();
  /** Images another member added whose record is on its way (by server id). */
  private readonly arriving = new Set<string>();
  /** Photos removed from the project by someone else while they held unsaved edits here (by the studio's id). */
  private readonly keptOutside = new Set<string>();

  constructor(
    public project: Project,
    /** By the studio's image id. */
    readonly images: Map<string, SyncedImage>,
    private readonly ports: ProjectSyncPorts,
  ) {}

  /** Writes what changed; calls made while a push runs are folded into one more round after it. */
  async push(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        await this.round();
      } while (this.again);
    } finally {
      this.running = false;
    }
  }

  /**
   * Someone wrote the image (an `annotations` event): its objects are fetched and merged into the
   * document in the next round, before any write, so local edits not yet written are kept and
   * written on the new revision. A revision this studio already holds (its own write) costs nothing.
   */
  async pull(serverImageId: string, revision: number): Promise<void> {
    this.announced.set(serverImageId, Math.max(revision, this.announced.get(serverImageId) ?? 0));
    return this.push();
  }

  /** Whether the image is one of this studio's (it was opened here, or uploaded from here). */
  knows(serverImageId: string): boolean {
    return [...this.images.values()].some((synced) => synced.serverId === serverImageId);
  }

  /** Another member added the image (an `image-added` event): its changes wait for `adopt`, and no notice says it is missing. */
  expectImage(serverImageId: string): void {
    this.arriving.add(serverImageId);
  }

  /** The added image, now in the document under `imageId`: its objects are fetched and merged like any change. */
  async adopt(imageId: string, image: Pick<ProjectImage, 'id' | 'revision'>): Promise<void> {
    this.arriving.delete(image.id);
    if (!this.knows(image.id)) this.images.set(imageId, { serverId: image.id, revision: 0, base: [] });
    return this.pull(image.id, image.revision);
  }

  /**
   * Another member removed the image from the project; it is no longer synced. Returns its id in
   * the document (undefined when it is not open here), and `kept` when the document holds edits on
   * it that the server never got: then the photo stays here with them, outside the project, and is
   * not uploaded again unless `addBack` says so (undoing the other's removal is not this studio's call).
   */
  release(serverImageId: string): { imageId: string; kept: boolean } | undefined {
    this.arriving.delete(serverImageId);
    this.announced.delete(serverImageId);
    for (const [imageId, synced] of this.images) {
      if (synced.serverId !== serverImageId) continue;
      this.images.delete(imageId);
      const kept = !sameObjects(synced.base, this.mine(this.ports.document(), imageId));
      if (kept) this.keptOutside.add(imageId);
      return { imageId, kept };
    }
    return undefined;
  }

  /** A photo kept outside the project (see `release`) goes into it again, as a new photo, with its objects. */
  addBack(imageId: string): Promise<void> {
    this.keptOutside.delete(imageId);
    return this.push();
  }

  /** Whether something is still to be fetched or written. */
  get busy(): boolean {
    return this.running || this.announced.size > 0;
  }

  private async round(): Promise<void> {
    const pulled = await this.fetchAnnounced();
    const doc = this.ports.document();
    const classes = toProjectClasses(doc.classes);
    const work = doc.images.flatMap((image) => {
      if (this.keptOutside.has(image.id)) return [];
      const synced = this.images.get(image.id);
      const objects = doc.objects[image.id] ?? NO_OBJECTS;
      if (synced?.seen === objects) return [];
      const mine = objects.map(toWire);
      if (synced && sameObjects(synced.base, mine)) {
        synced.seen = objects;
        return [];
      }
      return [{ image, objects, mine }];
    });
    const classesChanged = !sameClasses(classes, this.project.classes);
    if (!work.length && !classesChanged) {
      if (pulled) this.reportKept(pulled);
      return;
    }
    this.ports.status('syncing', null);
    const kept = pulled ?? [];
    try {
      if (classesChanged) this.project = await this.ports.api.updateClasses(this.project.id, classes);
      for (const { image, objects, mine } of work) {
        let synced = this.images.get(image.id);
        // Removed from the project by someone else while this round ran: not uploaded again.
        if (!synced && !this.ports.document().images.some((i) => i.id === image.id)) continue;
        if (!synced) {
          const added = await this.ports.api.addImage(this.project.id, image.name, await this.ports.imageBase64(image.id));
          const current = await this.ports.api.annotations(this.project.id, added.id);
          synced = { serverId: added.id, revision: current.revision, base: canonicalObjects(current.objects, this.project.classes) };
          this.images.set(image.id, synced);
        }
        kept.push(...(await this.write(image.id, synced, mine, objects)));
      }
      this.reportKept(kept);
    } catch (error) {
      this.reportFailure(error);
      throw error;
    }
  }

  private reportKept(kept: readonly string[]): void {
    if (kept.length) {
      this.ports.status('conflict', `Someone else changed this project at the same time: both versions are kept of ${kept.length === 1 ? 'one object' : `${kept.length} objects`} — the other person's first, yours right after it; nothing was lost.`);
    } else this.ports.status('saved', null);
  }

  private reportFailure(error: unknown): void {
    if (error instanceof TypeError) this.ports.status('offline', 'Offline: your edits are kept in this browser and sent when the server answers again.');
    else this.ports.status('error', `Not saved to the project: ${error instanceof Error ? error.message : String(error)}`);
  }

  /** The announced images' objects merged into the document; returns the ids kept twice, or null when nothing was fetched. */
  private async fetchAnnounced(): Promise<string[] | null> {
    let kept: string[] | null = null;
    const byServerId = new Map([...this.images].map(([imageId, synced]) => [synced.serverId, { imageId, synced }]));
    try {
      for (const [serverId, revision] of [...this.announced]) {
        const known = byServerId.get(serverId);
        // Its record is on its way: the announcement waits for it.
        if (!known && this.arriving.has(serverId)) continue;
        if (!known) this.ports.imageNotOpen?.(serverId);
        else if (known.synced.revision < revision) {
          this.ports.status('syncing', null);
          kept ??= [];
          kept.push(...this.mergeTheirs(known.imageId, known.synced, await this.ports.api.annotations(this.project.id, serverId)));
        }
        // Only once merged: a fetch that failed is tried again in the next round.
        if (this.announced.get(serverId) === revision) this.announced.delete(serverId);
      }
    } catch (error) {
      this.reportFailure(error);
      throw error;
    }
    return kept;
  }

  private mergeTheirs(imageId: string, synced: SyncedImage, current: { revision: number; objects: AnnotationObject[] }): string[] {
    if (current.revision <= synced.revision) return [];
    const theirs = canonicalObjects(current.objects, this.project.classes);
    const mine = this.mine(this.ports.document(), imageId);
    const merged = mergeObjects(synced.base, mine, theirs);
    synced.revision = current.revision;
    synced.base = theirs;
    synced.seen = undefined;
    if (!sameObjects(merged.objects, mine)) this.ports.replaceObjects(imageId, merged.objects.map((o, i) => fromWire(o, this.project.classes, i)));
    return merged.conflicts;
  }

  private mine(doc: Pick<StudioDocument, 'objects'>, imageId: string): AnnotationObject[] {
    return (doc.objects[imageId] ?? []).map(toWire);
  }

  /**
   * The merged objects into the document. Edits made there while the write was on its way are
   * merged in too (from what was sent to what is there now), and the next round writes them.
   */
  private landMerge(imageId: string, sent: AnnotationObject[], written: AnnotationObject[]): void {
    const now = this.mine(this.ports.document(), imageId);
    const objects = sameObjects(now, sent) ? written : mergeObjects(sent, now, written).objects;
    this.ports.replaceObjects(imageId, objects.map((o, i) => fromWire(o, this.project.classes, i)));
  }

  /** Writes `objects` on the image's revision, merging with the server's on a conflict; returns the ids kept twice. */
  private async write(imageId: string, synced: SyncedImage, objects: AnnotationObject[], from: readonly Annotation[]): Promise<string[]> {
    const kept: string[] = [];
    let next = objects;
    for (let attempt = 0; ; attempt++) {
      try {
        const written = await this.ports.api.writeAnnotations(this.project.id, synced.serverId, synced.revision, next);
        synced.revision = written.revision;
        synced.base = canonicalObjects(written.objects, this.project.classes);
        synced.seen = next === objects ? from : undefined;
        if (next !== objects) this.landMerge(imageId, objects, synced.base);
        return kept;
      } catch (error) {
        if (!(error instanceof RevisionConflict) || attempt >= MAX_MERGES) throw error;
        const theirs = canonicalObjects(error.current.objects, this.project.classes);
        const merged = mergeObjects(synced.base, next, theirs);
        kept.push(...merged.conflicts);
        synced.revision = error.current.revision;
        synced.base = theirs;
        next = merged.objects;
      }
    }
  }
}

export interface OpenedProject {
  readonly project: Project;
  readonly document: StudioDocument;
  /** By the studio's image id: the server's image, for fetching its file. */
  readonly files: ReadonlyMap<string, ProjectImage>;
  readonly images: Map<string, SyncedImage>;
  /** Studio ids of the images assigned to `me`: they come first in the document. */
  readonly mine: ReadonlySet<string>;
}

/** A project's images, classes, objects and review states from the server, as the studio's document; `me`'s assigned images first. */
export async function openProject(api: ProjectApi, projectId: string, studioImageId: (image: ProjectImage) => string, me: string | null = null): Promise<OpenedProject> {
  const [project, listed, all] = await Promise.all([api.get(projectId), api.images(projectId), api.allAnnotations(projectId)]);
  const images = myImagesFirst(listed, me);
  // An image added between the two reads has no annotations here yet: it starts empty at revision 0.
  const byImage = new Map(all.map((a) => [a.imageId, a]));
  const annotations = images.map((image) => byImage.get(image.id) ?? { imageId: image.id, revision: 0, objects: [], updatedBy: null, updatedAt: null });
  const data = { project, images: images.map((image, i) => ({ image, objects: annotations[i].objects })) };
  return {
    project,
    document: projectDocument(data, studioImageId),
    files: new Map(images.map((image) => [studioImageId(image), image])),
    images: new Map(
      images.map((image, i) => [studioImageId(image), { serverId: image.id, revision: annotations[i].revision, base: canonicalObjects(annotations[i].objects, project.classes) }]),
    ),
    mine: new Set(images.filter((image) => isAssignedTo(image, me)).map(studioImageId)),
  };
}
