/**
 * A typed call transport over a message port (a Web Worker, Node's worker_threads): `serve` exposes
 * an object whose methods take one request and an optional `Call`, `connect` returns an object of
 * the same type whose methods post to it. The transport knows no method: a new capability is a new
 * method on the interface, its implementation and its caller.
 *
 *   serve(port, (init, lifetime) => createService(init, lifetime), { transfers });  // in the worker
 *   const { api } = await connect<Service>(port, init, { transfers, errors, onEvent }); // the caller
 *   await api.predict(request, { signal, onEvent });
 *
 * - Transfers: a table gives, per method, the buffers of its request, its result and its events that
 *   move instead of being copied (`TransferTable`).
 * - Cancellation: the caller's AbortSignal rejects its call at once and tells the service, whose
 *   implementation gets a signal of its own; a late answer is dropped.
 * - Events: the implementation's `call.onEvent` reaches the caller's (an early mask); events of the
 *   start's `lifetime` call (model downloads, later ones included) reach `connect`'s `onEvent`.
 * - Errors keep their name and message, and classes the caller lists come back as instances of them.
 * - A port that fails (the worker crashed or exited) rejects every open call with ServiceGoneError.
 */

/** What a caller may add to one call; an implementation receives the same shape. */
export interface Call<E = never> {
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: E) => void;
}

/** The service side of a port: the worker's own scope. */
export interface ServicePort {
  post(message: unknown, transfer: ArrayBuffer[]): void;
  listen(onMessage: (message: unknown) => void): void;
}

/** The caller's side of a port: the worker seen from the page or the pool. */
export interface CallerPort {
  post(message: unknown, transfer: ArrayBuffer[]): void;
  /** `onFailure`: the far side is gone (an uncaught error, an exit); called at most once. */
  listen(onMessage: (message: unknown) => void, onFailure: (error: Error) => void): void;
  terminate(): void;
}

type RequestOf<M> = M extends (request: infer R, ...rest: never[]) => unknown ? R : never;
type ResultOf<M> = M extends (...args: never[]) => Promise<infer R> ? R : never;
type EventOf<M> = M extends (request: never, call?: Call<infer E>) => unknown ? E : never;

/** Per method, the views whose buffers move with its request, result or events (the rest is copied). */
export type TransferTable<T> = {
  readonly [K in keyof T]?: {
    readonly request?: (request: RequestOf<T[K]>) => readonly ArrayBufferView[];
    readonly result?: (result: ResultOf<T[K]>) => readonly ArrayBufferView[];
    readonly event?: (event: EventOf<T[K]>) => readonly ArrayBufferView[];
  };
};

/** Error classes re-created on the caller's side, by name. */
export type ErrorClasses = Readonly<Record<string, abstract new (...args: never[]) => Error>>;

/** The service is gone: its worker crashed, exited or was terminated. */
export class ServiceGoneError extends Error {
  override name = 'ServiceGoneError';
}

interface WireError {
  name: string;
  message: string;
  stack?: string;
}

type ToService =
  | { kind: 'start'; init: unknown }
  | { kind: 'call'; id: number; method: string; request: unknown; events: boolean }
  | { kind: 'cancel'; id: number };

/** `id` 0 is the start call: its events last as long as the service. */
type FromService =
  | { kind: 'event'; id: number; event: unknown }
  | { kind: 'result'; id: number; value: unknown }
  | { kind: 'error'; id: number; error: WireError };

const START_ID = 0;

interface Entry {
  readonly request?: (value: never) => readonly ArrayBufferView[];
  readonly result?: (value: never) => readonly ArrayBufferView[];
  readonly event?: (value: never) => readonly ArrayBufferView[];
}

function buffersOf(transfers: TransferTable<object> | undefined, method: string, part: keyof Entry, value: unknown): ArrayBuffer[] {
  const entry = (transfers as Record<string, Entry> | undefined)?.[method];
  const pick = entry?.[part] as ((value: unknown) => readonly ArrayBufferView[]) | undefined;
  return pick && value !== undefined && value !== null ? transferablesOf(pick(value)) : [];
}

/**
 * The distinct ArrayBuffers behind some views, for a transfer list. A buffer listed twice makes
 * postMessage throw; shared memory cannot be transferred at all (it is shared by cloning instead).
 */
export function transferablesOf(views: readonly ArrayBufferView[]): ArrayBuffer[] {
  const seen = new Set<ArrayBuffer>();
  for (const view of views) {
    const buffer = view.buffer;
    if (buffer instanceof ArrayBuffer && buffer.byteLength > 0) seen.add(buffer);
  }
  return [...seen];
}

function toWire(error: unknown): WireError {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { name: 'Error', message: String(error) };
}

function fromWire(wire: WireError, errors: ErrorClasses): Error {
  const known = errors[wire.name];
  // Built as an Error with the known class's prototype: its constructor may expect other arguments.
  const error = known ? (Reflect.construct(Error, [wire.message], known) as Error) : new Error(wire.message);
  error.name = wire.name;
  if (wire.stack) error.stack = wire.stack;
  return error;
}

/**
 * Answers calls arriving on `port` with the object `start` makes from the caller's `init`. Calls
 * arriving while it starts wait for it; a start that fails fails them and every later call.
 */
export function serve<T extends object, Init = undefined, E = never>(
  port: ServicePort,
  start: (init: Init, lifetime: Call<E>) => T | Promise<T>,
  options: { transfers?: TransferTable<T> } = {},
): void {
  let service: Promise<T> | undefined;
  const running = new Map<number, AbortController>();
  const post = (message: FromService, transfer: ArrayBuffer[] = []) => port.post(message, transfer);

  port.listen((data) => {
    const message = data as ToService;
    if (message.kind === 'start') {
      service = Promise.resolve().then(() => start(message.init as Init, { onEvent: (event) => post({ kind: 'event', id: START_ID, event }) }));
      service.then(
        () => post({ kind: 'result', id: START_ID, value: null }),
        (error: unknown) => post({ kind: 'error', id: START_ID, error: toWire(error) }),
      );
      return;
    }
    if (message.kind === 'cancel') {
      running.get(message.id)?.abort();
      return;
    }
    const { id, method, request } = message;
    const controller = new AbortController();
    running.set(id, controller);
    const onEvent = message.events ? (event: unknown) => post({ kind: 'event', id, event }, buffersOf(options.transfers, method, 'event', event)) : undefined;
    (async () => {
      if (!service) throw new Error('the service was called before it was started');
      const api = (await service) as Record<string, unknown>;
      const implementation = api[method];
      if (typeof implementation !== 'function') throw new Error(`the service has no method "${method}"`);
      return (await implementation.call(api, request, { signal: controller.signal, onEvent })) as unknown;
    })().then(
      (value) => post({ kind: 'result', id, value }, buffersOf(options.transfers, method, 'result', value)),
      (error: unknown) => post({ kind: 'error', id, error: toWire(error) }),
    ).finally(() => running.delete(id));
  });
}

export interface ConnectOptions<T, E> {
  transfers?: TransferTable<T>;
  errors?: ErrorClasses;
  /** Events of the service's lifetime (the `lifetime` call of its start). */
  onEvent?: (event: E) => void;
}

/** The caller's end: `api` posts every method call to the service; `close` ends the worker. */
export interface Connection<T> {
  readonly api: T;
  /** Rejects every open call with ServiceGoneError and terminates the worker. */
  close(): void;
  /** Resolves when the service is gone (its worker crashed or exited, or `close`): no call will be answered. */
  readonly gone: Promise<ServiceGoneError>;
}

interface Waiter {
  resolve(value: unknown): void;
  reject(error: Error): void;
  onEvent?: (event: unknown) => void;
}

/** Starts the service on `port` with `init`; resolves once it is started (rejects with its start error). */
export function connect<T extends object, Init = undefined, E = never>(port: CallerPort, init: Init, options: ConnectOptions<T, E> = {}): Promise<Connection<T>> {
  const errors = { ServiceGoneError, ...options.errors };
  const waiters = new Map<number, Waiter>();
  let nextId = START_ID + 1;
  let gone: ServiceGoneError | undefined;
  let announceGone: (error: ServiceGoneError) => void = () => undefined;
  const goneAnnounced = new Promise<ServiceGoneError>((resolve) => (announceGone = resolve));

  const failAll = (error: ServiceGoneError) => {
    gone ??= error;
    announceGone(gone);
    for (const waiter of waiters.values()) waiter.reject(gone);
    waiters.clear();
  };
  port.listen(
    (data) => {
      const message = data as FromService;
      const waiter = waiters.get(message.id);
      if (message.kind === 'event') {
        if (message.id === START_ID) options.onEvent?.(message.event as E);
        else waiter?.onEvent?.(message.event);
        return;
      }
      if (!waiter) return;
      waiters.delete(message.id);
      if (message.kind === 'result') waiter.resolve(message.value);
      else waiter.reject(fromWire(message.error, errors));
    },
    (error) => failAll(new ServiceGoneError(`the service's worker is gone: ${error.message}`)),
  );

  function invoke(method: string, request: unknown, call: Call<unknown> = {}): Promise<unknown> {
    if (gone) return Promise.reject(gone);
    const { signal, onEvent } = call;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        waiters.delete(id);
        port.post({ kind: 'cancel', id } satisfies ToService, []);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle = <A>(then: (a: A) => void) => (a: A) => {
        signal?.removeEventListener('abort', onAbort);
        then(a);
      };
      waiters.set(id, { resolve: settle(resolve), reject: settle(reject), onEvent });
      try {
        port.post({ kind: 'call', id, method, request, events: onEvent !== undefined } satisfies ToService, buffersOf(options.transfers, method, 'request', request));
      } catch (error) {
        waiters.delete(id);
        settle(reject)(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  const api = new Proxy({} as T, {
    // Not `then`: a connection's api must not look like a promise when it is returned from an async function.
    get: (_target, method) => (typeof method !== 'string' || method === 'then' ? undefined : (request: unknown, call?: Call<unknown>) => invoke(method, request, call)),
  });
  const connection: Connection<T> = {
    api,
    gone: goneAnnounced,
    close: () => {
      failAll(new ServiceGoneError('the service was closed'));
      port.terminate();
    },
  };
  return new Promise((resolve, reject) => {
    waiters.set(START_ID, {
      resolve: () => resolve(connection),
      reject: (error) => {
        port.terminate();
        reject(error);
      },
    });
    port.post({ kind: 'start', init } satisfies ToService, []);
  });
}
