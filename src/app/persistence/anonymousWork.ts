/**
 * Work done before signing in stays in the browser's anonymous space, which an account's studio
 * does not show. So that signing up or logging in never hides it silently, the studio says what is
 * there and where, and offers to bring it into the account as a new project; once it is there, the
 * anonymous copy is removed, so the same work is not found in two places.
 */
import { create } from 'zustand';
import { isTag } from '../../annotations/annotation';
import { restoreImageBlob } from '../images/imageLibrary';
import type { StudioDocument } from '../state/model';
import { useStudio } from '../state/studioStore';
import { ANONYMOUS, forgetSession, loadSession, readDocument, saveImage } from './session';
import { useLocalSpace } from './spaceStore';

/** The anonymous work last brought into an account, so that it is not offered again. */
const BROUGHT_IN_KEY = 'maskwright:anonymous-work-brought-in';
/**
 * The project made for the anonymous work by a try that failed after making it (its upload did not
 * go through): the next try fills that project, so trying again never leaves a second one behind.
 */
const PROJECT_MADE_KEY = 'maskwright:anonymous-work-project';

/** Making the project that the work on screen goes into, or filling the one an earlier try made. */
export interface ProjectMaker {
  /** A new project of the session on screen; `uploaded` settles once its photos and objects are on the server. */
  create(name: string): Promise<{ projectId: string; uploaded: Promise<void> }>;
  /** The session on screen into a project made before; null when that project is gone (deleted since). */
  fill(projectId: string): Promise<{ uploaded: Promise<void> } | null>;
}

/** The project an earlier, failed try made for this state of the anonymous work, if any. */
function projectMadeFor(signature: string): string | null {
  try {
    const made = JSON.parse(localStorage.getItem(PROJECT_MADE_KEY) ?? 'null') as { signature?: string; projectId?: string } | null;
    return made?.signature === signature && typeof made.projectId === 'string' ? made.projectId : null;
  } catch {
    return null;
  }
}

export interface AnonymousWork {
  readonly photos: number;
  readonly objects: number;
  /** Names this state of the anonymous work (its photos): new work there is offered again. */
  readonly signature: string;
}

export const useAnonymousWork = create<{ left: AnonymousWork | null; broughtInto: string | null }>(() => ({ left: null, broughtInto: null }));

/** What the anonymous space holds that has not been brought into an account yet; null when nothing. */
export function anonymousWorkOf(doc: Pick<StudioDocument, 'images' | 'objects'> | undefined, broughtIn: string | null): AnonymousWork | null {
  if (!doc?.images.length) return null;
  const signature = doc.images.map((image) => image.id).join(',');
  if (signature === broughtIn) return null;
  const objects = doc.images.reduce((n, image) => n + (doc.objects[image.id] ?? []).filter((o) => !isTag(o)).length, 0);
  return { photos: doc.images.length, objects, signature };
}

/** Called once an account's space is open: tells the studio about anonymous work left behind. */
export async function lookForAnonymousWork(): Promise<void> {
  const doc = await readDocument(ANONYMOUS).catch(() => undefined);
  useAnonymousWork.setState({ left: anonymousWorkOf(doc, localStorage.getItem(BROUGHT_IN_KEY)) });
}

/**
 * Puts the anonymous work on screen and makes a project of it (the studio's "save session as
 * project"), waiting until every photo and object is on the server. Only then is the anonymous
 * space emptied, its photos kept in the account's space: the work is in one place, the account. If
 * the project cannot be made or filled, the anonymous space stays as it was, and a try again fills
 * the project the failed try made instead of making another.
 */
export async function bringAnonymousWorkIn(name: string, projects: ProjectMaker): Promise<void> {
  const session = await loadSession(ANONYMOUS);
  const work = anonymousWorkOf(session?.doc, null);
  if (!session || !work) throw new Error('Nothing from before signing in is left in this browser.');
  for (const [id, blob] of session.blobs) await restoreImageBlob(id, blob);
  useStudio.getState().load(session.doc);
  try {
    const earlier = projectMadeFor(work.signature);
    let made = earlier ? await projects.fill(earlier) : null;
    if (!made) {
      const created = await projects.create(name);
      localStorage.setItem(PROJECT_MADE_KEY, JSON.stringify({ signature: work.signature, projectId: created.projectId }));
      made = created;
    }
    await made.uploaded;
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)} Your work from before signing in is still kept in this browser: bring it in again to finish (the same project is filled, not a second one made).`);
  }
  const space = useLocalSpace.getState().space;
  if (space && space.name !== ANONYMOUS.name) for (const [id, blob] of session.blobs) await saveImage(space, id, blob).catch(() => undefined);
  await forgetSession(ANONYMOUS, session.doc.images.map((image) => image.id));
  localStorage.setItem(BROUGHT_IN_KEY, work.signature);
  localStorage.removeItem(PROJECT_MADE_KEY);
  useAnonymousWork.setState({ left: null, broughtInto: name });
}
