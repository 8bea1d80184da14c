/**
 * The studio's shared project: made from the session on screen, or opened from the server, then
 * kept in sync in the background — the document is still saved in this browser at once (the local
 * space), and each change is written to the project shortly after (ProjectSync). Offline, the
 * writes wait and are retried; the state is shown by ProjectPanel.
 */
import type { CreateJobRequest } from '../../contract/jobs';
import type { MemberRole, ProjectImage } from '../../contract/projects';
import { accountApi, csrfToken } from '../remote/accountApi';
import { contentIdOfSha256, encodeForUpload, restoreImageBlob } from '../images/imageLibrary';
import { setServerThumbnails } from '../images/thumbnails';
import { saveImage } from '../persistence/session';
import { useLocalSpace } from '../persistence/spaceStore';
import { useRemoteSettings } from '../state/remoteSettingsStore';
import { currentDocument, studio, useStudio } from '../state/studioStore';
import { useUi } from '../state/uiStore';
import { toProjectClasses } from './annotationMapping';
import { ProjectApi, ProjectApiError } from './projectApi';
import { openProject, ProjectSync, type SyncedImage } from './projectSync';
import { showProjectInAddress } from './projectLink';
import { applyJobEvent, closedProjectState, useOpenProject } from './projectStore';
import { followProjectEvents } from './projectEvents';
import { followRemoteImages } from './remoteImages';
import { followKeptPhotos, keepOutside, mayAddBack } from './keptPhotos';

const PUSH_DELAY_MS = 400;
const RETRY_MS = 5_000;
/**
 * A browser sends about six requests at a time to one origin: the background file downloads take
 * four, so the thumbnails of the rows in view do not wait behind them.
 */
const FILE_DOWNLOADS = 4;

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
/** An image someone wrote that this studio does not have: fetched as an added photo (set by `follow`). */
let onImageNotOpen: (serverImageId: string) => void = () => {};

/** Follows the project; returns the first write's outcome (every photo and object on the server, or why not). */
function follow(api: ProjectApi, sync: ProjectSync): Promise<void> {
  stopSync();
  const { project } = sync;
  useOpenProject.setState({ ...closedProjectState(), open: { id: project.id, name: project.name, role: project.role } });
  showProjectInAddress(project.id);
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Every run of the sync ends here: whatever started it, the last to settle sees it idle.
  const settle = (run: Promise<void>) =>
    run.then(
      () => !stopped && useOpenProject.setState({ busy: sync.busy }),
      () => {
        if (!stopped) push(RETRY_MS);
      },
    );
  const push = (delay: number) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      useOpenProject.setState({ editsWaiting: false, busy: true });
      void settle(sync.push());
    }, delay);
  };
  const pull = (imageId: string, revision: number) => {
    useOpenProject.setState({ busy: true });
    void settle(sync.pull(imageId, revision));
  };
  const remoteImages = followRemoteImages({
    sync,
    listImages: () => api.images(project.id),
    studioId: (image) => contentIdOfSha256(image.sha256),
    isOpen: (imageId) => currentDocument().images.some((image) => image.id === imageId),
    show: (entry, image) => {
      setServerThumbnails([[entry.id, api.thumbnailUrl(project.id, image.id)]]);
      studio.addRemoteImage(entry);
      void fetchProjectFile(api, project.id, entry.id, image).catch(() => undefined);
    },
    adopt: (imageId, image) => {
      useOpenProject.setState({ busy: true });
      void settle(sync.adopt(imageId, image));
    },
    hide: (imageId) => studio.removeRemoteImage(imageId),
    keptOutside: (imageId, removedBy) => {
      const name = currentDocument().images.find((image) => image.id === imageId)?.name ?? 'a photo';
      keepOutside({ imageId, name, removedBy });
      useUi
        .getState()
        .setNotice(`${removedBy ?? 'Another member'} removed ${name} from the project. Your changes on it that were not saved yet are kept here, outside the project${mayAddBack() ? ': Add back (in the Project panel, or U on the photo) puts it in the project again with them' : ''}.`);
    },
    stopped: () => stopped,
  });
  onImageNotOpen = (serverImageId) => remoteImages.added(serverImageId);
  const stopKeptPhotos = followKeptPhotos((imageId) => {
    useOpenProject.setState({ busy: true });
    void settle(sync.addBack(imageId));
  });
  let last = currentDocument();
  const unsubscribe = useStudio.subscribe((state) => {
    if (state.history.present === last) return;
    last = state.history.present;
    useOpenProject.setState({ editsWaiting: true });
    push(PUSH_DELAY_MS);
  });
  const refreshJobs = () =>
    void api.jobs(project.id).then(
      (jobs) => !stopped && useOpenProject.setState({ jobs }),
      () => undefined,
    );
  // Whatever changed while the stream was not listening (before it first opened, or while it was
  // down) is caught up from the project's revisions; the sync skips what it already holds.
  const catchUp = () =>
    void api.allAnnotations(project.id).then(
      (all) => all.forEach((image) => !stopped && (sync.knows(image.imageId) ? pull(image.imageId, image.revision) : remoteImages.added(image.imageId))),
      () => undefined,
    );
  const stopEvents = followProjectEvents(api.eventsUrl(project.id), {
    connection: (stream) => {
      if (stopped) return;
      useOpenProject.setState({ stream });
      if (stream === 'open') {
        catchUp();
        refreshJobs();
      }
    },
    event: (event) => {
      if (stopped) return;
      if (event.type === 'annotations') return pull(event.imageId, event.revision);
      if (event.type === 'image-added') return remoteImages.added(event.imageId);
      if (event.type === 'image-removed') return remoteImages.removed(event.imageId, event.changedBy);
      if (event.type === 'learned') return useOpenProject.setState({ learnedRevision: event.revision });
      if (event.type !== 'job') return;
      const jobs = applyJobEvent(useOpenProject.getState().jobs, event);
      if (jobs) useOpenProject.setState({ jobs });
      else refreshJobs();
    },
  });
  const online = () => push(0);
  window.addEventListener('online', online);
  stopSync = () => {
    stopped = true;
    clearTimeout(timer);
    stopKeptPhotos();
    unsubscribe();
    stopEvents();
    window.removeEventListener('online', online);
    useOpenProject.setState(closedProjectState());
    showProjectInAddress(null);
  };
  useOpenProject.setState({ editsWaiting: false, busy: true });
  const first = sync.push();
  void settle(first);
  return first;
}

function startSync(api: ProjectApi, project: ConstructorParameters<typeof ProjectSync>[0], images: Map<string, SyncedImage>): Promise<void> {
  return follow(
    api,
    new ProjectSync(project, images, {
      api,
      document: currentDocument,
      replaceObjects: (imageId, objects) => studio.mergeRemoteObjects(imageId, objects),
      imageBase64: (imageId) => encodeForUpload(imageId, 1),
      status: (state, message) => useOpenProject.setState({ state, message }),
      imageNotOpen: (serverImageId) => onImageNotOpen(serverImageId),
    }),
  );
}

/**
 * The session on screen becomes a project of the signed-in account: its photos, classes and objects
 * are uploaded in the background; `uploaded` settles with the first upload (the sync retries a
 * failed one on its own).
 */
export async function createProjectFromSession(name: string): Promise<{ projectId: string; uploaded: Promise<void> }> {
  const api = browserProjectApi();
  const project = await api.create(name, toProjectClasses(currentDocument().classes));
  const uploaded = startSync(api, project, new Map());
  uploaded.catch(() => undefined);
  return { projectId: project.id, uploaded };
}

/**
 * The session on screen into a project made from it before, whose upload did not finish: photos
 * already there are found again by their content, objects merged as any write. Null when the
 * project is gone.
 */
export async function fillProjectFromSession(projectId: string): Promise<{ uploaded: Promise<void> } | null> {
  const api = browserProjectApi();
  const project = await api.get(projectId).catch((error: unknown) => {
    if (error instanceof ProjectApiError && error.status === 404) return null;
    throw error;
  });
  if (!project) return null;
  const uploaded = startSync(api, project, new Map());
  uploaded.catch(() => undefined);
  return { uploaded };
}

/**
 * Replaces the session on screen by the project's images, classes, objects and review states. It
 * is shown once the first photo is in; the others' files follow in the background, a few at a
 * time, each appearing in the list as it arrives.
 */
export async function openProjectInStudio(projectId: string): Promise<void> {
  const api = browserProjectApi();
  const me = await accountApi.account(useRemoteSettings.getState().remote.baseUrl).then(
    (account) => account.email,
    () => null,
  );
  const opened = await openProject(api, projectId, (image) => contentIdOfSha256(image.sha256), me);
  const fetchFile = ([imageId, image]: [string, ProjectImage]) => fetchProjectFile(api, projectId, imageId, image);
  const [first, ...rest] = opened.files;
  if (first) await fetchFile(first);
  stopSync();
  setServerThumbnails([...opened.files].map(([imageId, image]) => [imageId, api.thumbnailUrl(projectId, image.id)] as const));
  useStudio.getState().load(opened.document);
  void startSync(api, opened.project, opened.images).catch(() => undefined);
  useOpenProject.setState({ mine: opened.mine });
  void inParallel(rest, FILE_DOWNLOADS, fetchFile).catch((error: unknown) =>
    useUi.getState().setNotice(`Some photos of the project could not be loaded: ${error instanceof Error ? error.message : String(error)}`),
  );
}

/** A project photo's file into the studio and this browser's space, in the background. */
async function fetchProjectFile(api: ProjectApi, projectId: string, imageId: string, image: ProjectImage): Promise<void> {
  const blob = await api.imageFile(projectId, image.id, 'low');
  await restoreImageBlob(imageId, blob);
  const space = useLocalSpace.getState().space;
  if (space) await saveImage(space, imageId, blob).catch(() => undefined);
}

/** Runs `work` on every item, at most `limit` at once. */
async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

export function closeProject(): void {
  stopSync();
}

/** Starts an auto-label job on the open project; its progress arrives through the event stream. */
export async function startProjectJob(request: CreateJobRequest): Promise<void> {
  const open = useOpenProject.getState().open;
  if (!open) throw new Error('no project is open');
  const job = await browserProjectApi().startJob(open.id, request);
  const { jobs } = useOpenProject.getState();
  if (useOpenProject.getState().open?.id === open.id && !jobs.some((j) => j.id === job.id)) useOpenProject.setState({ jobs: [job, ...jobs] });
}

export async function cancelProjectJob(jobId: string): Promise<void> {
  const open = useOpenProject.getState().open;
  if (!open) throw new Error('no project is open');
  const job = await browserProjectApi().cancelJob(open.id, jobId);
  const { jobs } = useOpenProject.getState();
  useOpenProject.setState({ jobs: jobs.map((j) => (j.id === job.id ? job : j)) });
}

export async function shareProject(email: string, role: MemberRole): Promise<void> {
  const open = useOpenProject.getState().open;
  if (!open) throw new Error('no project is open');
  await browserProjectApi().share(open.id, email, role);
}
