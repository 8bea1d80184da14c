import { useEffect, useState } from 'react';
import { restoreImageBlob } from '../images/imageLibrary';
import { useStudio } from '../state/studioStore';
import { loadSession, saveDocument } from './session';

/** Restores the last session once, then saves the document shortly after each change. */
export function useSessionPersistence(): boolean {
  const [restored, setRestored] = useState(false);
  useEffect(() => {
    let cancelled = false;
    loadSession()
      .then(async (session) => {
        if (!session || cancelled) return;
        for (const [id, blob] of session.blobs) await restoreImageBlob(id, blob);
        if (!cancelled && useStudio.getState().history.present.images.length === 0) useStudio.getState().load(session.doc);
      })
      .catch(() => undefined)
      .finally(() => !cancelled && setRestored(true));
    return () => {
      cancelled = true;
    };
  }, []);

  useEffect(() => {
    if (!restored) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let last = useStudio.getState().history.present;
    const unsubscribe = useStudio.subscribe((state) => {
      if (state.history.present === last) return;
      last = state.history.present;
      clearTimeout(timer);
      timer = setTimeout(() => void saveDocument(last).catch(() => undefined), 400);
    });
    return () => {
      clearTimeout(timer);
      unsubscribe();
    };
  }, [restored]);
  return restored;
}
