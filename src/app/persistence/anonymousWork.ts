/**
 * Work done before signing in stays in the browser's anonymous space, which an account's studio
 * does not show. So that signing up or logging in never hides it silently, the studio says what is
 * there and where, and offers to bring it into the account as a new project.
 */
import { create } from 'zustand';
import { isTag } from '../../annotations/annotation';
import { restoreImageBlob } from '../images/imageLibrary';
import type { StudioDocument } from '../state/model';
import { useStudio } from '../state/studioStore';
import { ANONYMOUS, loadSession, readDocument } from './session';

/** The anonymous work last brought into an account, so that it is not offered again. */
const BROUGHT_IN_KEY = 'maskwright:anonymous-work-brought-in';

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
 * Puts the anonymous work on screen and makes a project of it (`makeProject`: the studio's "save
 * session as project"); the anonymous space itself is left as it was.
 */
export async function bringAnonymousWorkIn(name: string, makeProject: (name: string) => Promise<void>): Promise<void> {
  const session = await loadSession(ANONYMOUS);
  const work = anonymousWorkOf(session?.doc, null);
  if (!session || !work) throw new Error('Nothing from before signing in is left in this browser.');
  for (const [id, blob] of session.blobs) await restoreImageBlob(id, blob);
  useStudio.getState().load(session.doc);
  await makeProject(name);
  localStorage.setItem(BROUGHT_IN_KEY, work.signature);
  useAnonymousWork.setState({ left: null, broughtInto: name });
}
