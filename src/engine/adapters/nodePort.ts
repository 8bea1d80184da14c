/** The transport's two ends on a Node worker thread (service/transport.ts): the parent's and the thread's own. */
import type { MessagePort, Worker } from 'node:worker_threads';
import type { CallerPort, ServicePort } from '../service/transport';

/** The parent's end of `worker`: an uncaught error in the thread, or its exit, fails the calls still open. */
export function workerThreadPort(worker: Worker): CallerPort {
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    listen(onMessage, onFailure) {
      let failed = false;
      const fail = (error: Error) => {
        if (failed) return;
        failed = true;
        onFailure(error);
      };
      worker.on('message', onMessage);
      worker.on('error', fail);
      worker.on('exit', (code) => fail(new Error(`the worker thread exited with code ${code}`)));
    },
    terminate: () => void worker.terminate(),
  };
}

/** The thread's end, on `parentPort`. */
export function parentThreadPort(port: MessagePort | null): ServicePort {
  if (!port) throw new Error('a service port needs a worker thread (parentPort is null)');
  return {
    post: (message, transfer) => port.postMessage(message, transfer),
    listen: (onMessage) => void port.on('message', onMessage),
  };
}
