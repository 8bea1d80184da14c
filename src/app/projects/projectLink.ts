/**
 * The open project is named in the page's address (`?project=<id>`, beside the hash route), so a
 * reload — or the link sent to a colleague — opens it again (useReopenProject.ts).
 */
export const PROJECT_PARAM = 'project';

export function projectInAddress(href: string): string | null {
  return new URL(href).searchParams.get(PROJECT_PARAM) || null;
}

/** `href` naming `projectId` (or no project), its path, other parameters and hash kept. */
export function addressWithProject(href: string, projectId: string | null): string {
  const url = new URL(href);
  if (projectId) url.searchParams.set(PROJECT_PARAM, projectId);
  else url.searchParams.delete(PROJECT_PARAM);
  return url.href;
}

/** Rewrites the address bar without a navigation or a history entry. */
export function showProjectInAddress(projectId: string | null): void {
  const next = addressWithProject(location.href, projectId);
  if (next !== location.href) history.replaceState(history.state, '', next);
}
