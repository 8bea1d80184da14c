import { create } from 'zustand';
import type { Job, JobEvent } from '../../contract/jobs';
import type { ProjectRole } from '../../contract/projects';
import type { z } from 'zod';
import { liveStatusText, type LiveStatusText, type StreamState } from './liveStatus';
import type { SyncState } from './projectSync';

/** The shared project the studio has open, if any, and how far it is from the server (shown by ProjectPanel, liveStatus.ts). */
interface OpenProjectState {
  open: { id: string; name: string; role: ProjectRole } | null;
  state: SyncState;
  message: string | null;
  stream: StreamState;
  busy: boolean;
  editsWaiting: boolean;
  /** The project's auto-label jobs, newest first, kept current by the event stream. */
  jobs: Job[];
  /** Studio ids of the images the owner assigned to this person (listed first, and marked). */
  mine: ReadonlySet<string>;
  /** The revision of the project's learned model the event stream last announced: the learner follows it (learn/projectLearnedServices.ts). */
  learnedRevision: number | null;
  /** Photos another member removed while this studio held unsaved edits on them: kept here, outside the project (keptPhotos.ts). */
  keptOutside: readonly KeptPhoto[];
}

/** A photo kept outside the project; `removedBy` names who removed it, when the server said. */
export interface KeptPhoto {
  readonly imageId: string;
  readonly name: string;
  readonly removedBy: string | null;
}

const CLOSED = { open: null, state: 'saved', message: null, stream: 'connecting', busy: false, editsWaiting: false, jobs: [], mine: new Set<string>(), learnedRevision: null, keptOutside: [] } as const satisfies OpenProjectState;

export const useOpenProject = create<OpenProjectState>(() => closedProjectState());

export function closedProjectState(): OpenProjectState {
  return { ...CLOSED, jobs: [], mine: new Set() };
}

/** A job event onto the listed jobs; null when the job is not listed (started elsewhere: the list is fetched again). */
export function applyJobEvent(jobs: readonly Job[], event: z.infer<typeof JobEvent>): Job[] | null {
  if (!jobs.some((job) => job.id === event.jobId)) return null;
  return jobs.map((job) => (job.id === event.jobId ? { ...job, state: event.state, done: event.done, failed: event.failed, total: event.total } : job));
}

/** The open project's status as the panel and the status bar say it (liveStatus.ts). */
export function useProjectStatusText(): LiveStatusText {
  return useOpenProject((s) => liveStatusText({ stream: s.stream, sync: s.state, busy: s.busy, editsWaiting: s.editsWaiting }));
}
