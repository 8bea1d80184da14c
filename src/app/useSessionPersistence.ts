import { useEffect, useRef, useState } from 'react';
import { useAccount } from './remote/useAccount';
import { forgetAllImages, restoreImageBlob } from './images/imageLibrary';
import { emptyDocument, type StudioDocument } from './state/model';
import { useStudio } from './state/studioStore';
import { useUi } from './state/uiStore';
import { setLearnedModel, useLearnedClasses, learnedModel } from './learn/learnerServices';
import type { LearnedModelState } from './learn/sessionLearner';
import { loadLearnedModel, loadSession, saveDocument, saveLearnedModel, type LocalSpace } from './persistence/session';
import { chooseSpace, useLocalSpace } from './persistence/spaceStore';
import { ANONYMOUS_SPACE } from './persistence/localSpace';
import { lookForAnonymousWork, useAnonymousWork } from './persistence/anonymousWork';

let flushPending: () => Promise<void> = async () => undefined;

/** Writes the last change now (before logging out, which reloads the page). */
export const flushSessionSave = (): Promise<void> => flushPending();

const UNKEYED_NOTICE =
  'This browser keeps each account’s work apart since you signed in here: log out and in again to keep your work in this browser. Until then it is not saved here.';

/**
 * Opens the local space of whoever is signed in (spaceStore.ts): restores its last session, then
 * saves the document shortly after each change. When the space changes (log-in, or a session that
 * ended) the screen is cleared before the next space's work is shown.
 */
export function useSessionPersistence(): boolean {
  const account = useAccount();
  const [space, setSpace] = useState<LocalSpace | null | undefined>(undefined);
  const [restored, setRestored] = useState(false);
  const shown = useRef<string | null | undefined>(undefined);
  const email = account.data?.signedIn?.email ?? null;

  useEffect(() => {
    if (account.isPending) return;
    let cancelled = false;
    void chooseSpace(account.data ?? null, account.isError).then((chosen) => {
      if (!cancelled) setSpace((current) => (current !== undefined && current?.name === chosen?.name ? current : chosen));
    });
    return () => {
      cancelled = true;
    };
    // The space follows who is signed in, not every balance change.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [account.isPending, account.isError, email]);

  useEffect(() => {
    if (space === undefined) return;
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let unsubscribe = () => {};
    let unsaved: StudioDocument | null = null;
    let modelUnsaved = false;
    const save = async () => {
      clearTimeout(timer);
      const doc = unsaved;
      unsaved = null;
      if (doc && space) await saveDocument(space, doc).catch(() => undefined);
      if (modelUnsaved && space) {
        modelUnsaved = false;
        await saveLearnedModel(space, learnedModel()).catch(() => undefined);
      }
    };
    const later = () => {
      clearTimeout(timer);
      timer = setTimeout(() => void save(), 400);
    };
    useLocalSpace.setState({ space });
    const name = space?.name ?? null;
    if (shown.current !== undefined && shown.current !== name) {
      useStudio.getState().load(emptyDocument());
      forgetAllImages();
      setLearnedModel(null);
    }
    shown.current = name;
    if (space === null) useUi.getState().setNotice(UNKEYED_NOTICE);
    setRestored(false);
    (space ? loadSession(space) : Promise.resolve(null))
      .then(async (session) => {
        if (!session || cancelled) return;
        for (const [id, blob] of session.blobs) await restoreImageBlob(id, blob);
        if (!cancelled && useStudio.getState().history.present.images.length === 0) {
          useStudio.getState().load(session.doc);
          // The learned classes come back with the document they were taught from (a state this studio cannot read starts afresh).
          const model = space ? ((await loadLearnedModel(space)) as LearnedModelState | undefined) : undefined;
          if (!cancelled && model) {
            try {
              setLearnedModel(model);
            } catch {
              setLearnedModel(null);
            }
          }
        }
      })
      .catch(() => undefined)
      .finally(() => {
        if (cancelled) return;
        setRestored(true);
        if (space && space.name !== ANONYMOUS_SPACE) void lookForAnonymousWork();
        else useAnonymousWork.setState({ left: null });
        let last = useStudio.getState().history.present;
        const unsubscribeDocument = useStudio.subscribe((state) => {
          if (state.history.present === last) return;
          last = unsaved = state.history.present;
          later();
        });
        const unsubscribeModel = useLearnedClasses.subscribe((now, before) => {
          if (now.revision === before.revision) return;
          modelUnsaved = true;
          later();
        });
        unsubscribe = () => {
          unsubscribeDocument();
          unsubscribeModel();
        };
        flushPending = save;
      });
    return () => {
      cancelled = true;
      unsubscribe();
      void save();
    };
  }, [space]);
  return restored;
}
