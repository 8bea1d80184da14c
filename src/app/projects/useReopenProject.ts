import { useEffect, useRef } from 'react';
import { useAccount } from '../remote/useAccount';
import { ANONYMOUS_SPACE } from '../persistence/localSpace';
import { useLocalSpace } from '../persistence/spaceStore';
import { useUi } from '../state/uiStore';
import { ProjectApiError } from './projectApi';
import { projectInAddress, showProjectInAddress } from './projectLink';
import { openProjectInStudio } from './projectSession';

export const NOT_AVAILABLE_NOTICE = 'This project is not available to you: it does not exist, or it is not shared with this account. Nothing of it was opened.';
export const SIGN_IN_NOTICE = 'This link opens a shared project: log in to open it.';

/**
 * Opens the project the page's address names (projectLink.ts) once the page has started: after a
 * reload, or from a link. It waits for the signed-in account's own local space to be restored (so
 * that restoring cannot replace the project on screen); without a session it asks to log in and
 * opens the project after. A project this account may not see is said so, and the address forgets it.
 */
export function useReopenProject(restored: boolean): void {
  const account = useAccount();
  const space = useLocalSpace((s) => s.space);
  const wanted = useRef(projectInAddress(location.href));
  const askedToSignIn = useRef(false);

  useEffect(() => {
    const projectId = wanted.current;
    if (!projectId || account.isPending || !restored) return;
    const view = account.data;
    if (view?.via !== 'session' || !view.signedIn) {
      if (!askedToSignIn.current) useUi.getState().setNotice(SIGN_IN_NOTICE);
      askedToSignIn.current = true;
      return;
    }
    if (space?.name === ANONYMOUS_SPACE) return; // the account's own space opens next
    wanted.current = null;
    if (askedToSignIn.current && useUi.getState().notice === SIGN_IN_NOTICE) useUi.getState().setNotice(null);
    openProjectInStudio(projectId).catch((error: unknown) => {
      showProjectInAddress(null);
      useUi.getState().setNotice(error instanceof ProjectApiError && error.status === 404 ? NOT_AVAILABLE_NOTICE : `The project could not be opened: ${error instanceof Error ? error.message : String(error)}`);
    });
  }, [account.isPending, account.data, restored, space]);
}
