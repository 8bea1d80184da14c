/**
 * The open project's live events (GET …/events, Server-Sent Events) in the browser. EventSource
 * sends the session cookie and, after a dropped connection, reconnects by itself with
 * Last-Event-ID. It gives up when the server answers with an error (a restart's 503, say): then
 * this reconnects after a pause, resuming after the last event it saw. Whatever a reconnect misses
 * is caught up by the caller on `open`.
 */
import { ProjectEvent } from '../../contract/jobs';
import type { StreamState } from './liveStatus';

const RECONNECT_MS = 2_000;

export interface ProjectEventHandlers {
  event(event: ProjectEvent): void;
  /** `open` each time the stream (re)connects: events missed while it was down may need a catch-up. */
  connection(state: StreamState): void;
}

/** Follows the stream until the returned function is called. */
export function followProjectEvents(url: string, handlers: ProjectEventHandlers): () => void {
  let lastEventId: string | null = null;
  let source: EventSource | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const connect = () => {
    if (stopped) return;
    if (!navigator.onLine) return handlers.connection('down');
    handlers.connection('connecting');
    source = new EventSource(lastEventId ? `${url}?lastEventId=${encodeURIComponent(lastEventId)}` : url, { withCredentials: true });
    source.onopen = () => handlers.connection('open');
    source.onmessage = (message: MessageEvent<string>) => {
      if (message.lastEventId) lastEventId = message.lastEventId;
      const parsed = ProjectEvent.safeParse(safeJson(message.data));
      // An event of a kind this studio does not know yet is skipped, not fatal.
      if (parsed.success) handlers.event(parsed.data);
    };
    source.onerror = () => {
      handlers.connection('down');
      if (source?.readyState !== EventSource.CLOSED) return;
      source = null;
      retry = setTimeout(connect, RECONNECT_MS);
    };
  };
  // The browser knows it lost the network before an idle stream would notice: the stream is down
  // until it is back, then reconnects from the last event seen.
  const offline = () => {
    clearTimeout(retry);
    source?.close();
    source = null;
    handlers.connection('down');
  };
  const online = () => {
    if (!source) connect();
  };
  window.addEventListener('offline', offline);
  window.addEventListener('online', online);
  connect();
  return () => {
    stopped = true;
    clearTimeout(retry);
    source?.close();
    window.removeEventListener('offline', offline);
    window.removeEventListener('online', online);
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
