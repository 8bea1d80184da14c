/// <reference lib="webworker" />
/** The transport's two ends on a Web Worker (service/transport.ts): the page's and the worker's own. */
import type { CallerPort, ServicePort } from '../service/transport';

/** The page's end of `worker`: a script error in it, or `terminate`, fails the calls still open. */
export function webWorkerPort(worker: Worker): CallerPort {
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    listen(onMessage, onFailure) {
      worker.onmessage = (event: MessageEvent) => onMessage(event.data);
      worker.onerror = (event: ErrorEvent) => {
        onFailure(new Error(event.message || 'script error (is the worker bundle served?)'));
      };
    },
    terminate: () => worker.terminate(),
  };
}

/** The worker's end, on its global scope. */
export function webWorkerScopePort(scope: DedicatedWorkerGlobalScope): ServicePort {
  return {
    post: (message, transfer) => scope.postMessage(message, transfer),
    listen: (onMessage) => {
      scope.onmessage = (event: MessageEvent) => onMessage(event.data);
    },
  };
}
