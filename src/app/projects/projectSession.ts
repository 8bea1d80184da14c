/**
 * The studio's shared project: made from the session on screen, or opened from the server, then
 * kept in sync in the background — the document is still saved in this browser at once (the local
 * space), and each change is written to the project shortly after (ProjectSync). Offline, the
 * writes wait and are retried; the state is shown by ProjectPanel.
 */
import type { MemberRole } from '../../contract/projects';
import { csrfToken } from '../account/accountApi';
import { contentIdOfSha256, encodeForUpload, restoreImageBlob } from '../images/imageLibrary';
import { saveImage } from '../persistence/session';
import { useLocalSpace } from '../persistence/spaceStore';
import { setObjects } from '../state/documentOps';
import { useRemoteSettings } from '../state/remoteSettingsStore';
import { currentDocument, useStudio } from '../state/studioStore';
import { toProjectClasses } from './annotationMapping';
import { ProjectApi } from './projectApi';
import { openProject, ProjectSync, type SyncedImage } from './projectSync';
import { useOpenProject } from './projectStore';

const PUSH_DELAY_MS = 400;
const RETRY_MS = 5_000;

/** The API with the session cookie; state-changing calls echo the CSRF cookie. */
export function browserProjectApi(): ProjectApi {
  return new ProjectApi({
    baseUrl: useRemoteSettings.getState().remote.baseUrl,
    credentials: 'include',
    authHeaders: (method): Record<string, string> => {
      const token = method === 'GET' ? null : csrfToken();
      return token ? { 'X-CSRF-Token': token } : {};
    },
  });
}

let stopSync: () => void = () => {};

function follow(sync: ProjectSync): void {
  stopSync();
  const { project } = sync;
  useOpenProject.setState({ open: { id: project.id, name: project.name, role: project.role }, state: 'saved', message: null });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const push = (delay: number) => {
    clearTimeout(timer);
    timer = setTimeout(() => void sync.push().catch(() => push(RETRY_MS)), delay);
  };
  let last = currentDocument();
  const unsubscribe = useStudio.subscribe((state) => {
    if (state.history.present === last) return;
    last = state.history.present;
    push(PUSH_DELAY_MS);
  });
  const online = () => push(0);
  window.addEventListener('online', online);
  stopSync = () => {
    clearTimeout(timer);
    unsubscribe();
    window.removeEventListener('online', online);
    useOpenProject.setState({ open: null, state: 'saved', message: null });
  };
  push(0);
}

function startSync(api: ProjectApi, project: ConstructorParameters<typeof ProjectSync>[0], images: Map<string, SyncedImage>): void {
  follow(
    new ProjectSync(project, images, {
      api,
      document: currentDocument,
      replaceObjects: (imageId, objects) => useStudio.getState().apply('merge with the project', (doc) => setObjects(doc, imageId, objects)),
      imageBase64: (imageId) => encodeForUpload(imageId, 1),
      status: (state, message) => useOpenProject.setState({ state, message }),
    }),
  );
}

/** The session on screen becomes a project of the signed-in account: its photos, classes and objects are uploaded. */
export async function createProjectFromSession(name: string): Promise<void> {
  const api = browserProjectApi();
  const project = await api.create(name, toProjectClasses(currentDocument().classes));
  startSync(api, project, new Map());
}

/** Replaces the session on screen by the project's images, classes, objects and review states. */
export async function openProjectInStudio(projectId: string): Promise<void> {
  const api = browserProjectApi();
  const opened = await openProject(api, projectId, (image) => contentIdOfSha256(image.sha256));
  const space = useLocalSpace.getState().space;
  await Promise.all(
    [...opened.files].map(async ([imageId, image]) => {
      const blob = await api.imageFile(projectId, image.id);
      await restoreImageBlob(imageId, blob);
      if (space) await saveImage(space, imageId, blob).catch(() => undefined);
    }),
  );
  stopSync();
  useStudio.getState().load(opened.document);
  startSync(api, opened.project, opened.images);
}

export function closeProject(): void {
  stopSync();
}

export async function shareProject(email: string, role: MemberRole): Promise<void> {
  const open = useOpenProject.getState().open;
  if (!open) throw new Error('no project is open');
  await browserProjectApi().share(open.id, email, role);
}
