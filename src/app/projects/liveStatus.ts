/**
 * What the project panel says about the open project, from everything that can make the studio
 * differ from the server: the event stream (down: changes by others would not arrive), changes
 * announced but not yet merged, and local edits not yet acknowledged by the server. "Up to date"
 * only when none of these holds.
 */
import type { SyncState } from './projectSync';

/** `connecting`: opened, not yet answered (events sent meanwhile arrive once it is). */
export type StreamState = 'connecting' | 'open' | 'down';

export interface LiveFacts {
  readonly stream: StreamState;
  /** The outcome of the sync's last round. */
  readonly sync: SyncState;
  /** Announced changes being fetched, or edits being written. */
  readonly busy: boolean;
  /** Local edits made and not yet handed to the sync (it writes them shortly after). */
  readonly editsWaiting: boolean;
}

export type LiveStatusText = 'Up to date' | 'Behind' | 'Offline' | 'Conflict' | 'Not saved';

export function liveStatusText({ stream, sync, busy, editsWaiting }: LiveFacts): LiveStatusText {
  if (sync === 'error') return 'Not saved';
  if (stream === 'down' || sync === 'offline') return 'Offline';
  if (stream === 'connecting' || busy || editsWaiting || sync === 'syncing') return 'Behind';
  // Merged and written: what the panel's message names is on the server, kept twice.
  if (sync === 'conflict') return 'Conflict';
  return 'Up to date';
}
