import type { z } from 'zod';
import { jsonBody, PvsResponse, readProblem, SegmentResponse, type PvsRequest, type SegmentRequest } from '../../contract';
import { decide, newIdempotencyKey } from './retryPolicy';

export interface RemoteConfig {
  /** '' = same origin. */
  readonly baseUrl: string;
  readonly apiKey: string;
}

export interface PaidResult<T> {
  readonly data: T;
  readonly requestId: string | null;
  readonly refunded: boolean;
  readonly idempotencyKey: string;
}

export class RemoteCallError extends Error {
  constructor(
    message: string,
    readonly status: number | 'network-error',
    readonly requestId: string | null,
    readonly problemType?: string,
  ) {
    super(message);
    this.name = 'RemoteCallError';
  }
}

export interface PaidCallOptions {
  /** Shown to the user while we wait on 409/429 ("waiting", not failure). */
  readonly onWaiting?: (reason: string, seconds: number) => void;
  readonly signal?: AbortSignal;
  readonly idempotencyKey?: string;
}

export function apiUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new DOMException('aborted', 'AbortError'));
    });
  });

/** POSTs a paid request; every retry reuses one Idempotency-Key so it is charged at most once. */
export async function paidCall<T>(config: RemoteConfig, path: string, body: unknown, schema: z.ZodType<T>, options: PaidCallOptions = {}): Promise<PaidResult<T>> {
  const idempotencyKey = options.idempotencyKey ?? newIdempotencyKey();
  const payload = JSON.stringify(body);
  let waitedSeconds = 0;
  // Only dropped connections use up attempts; "come back later" answers use up waiting time.
  let attempt = 1;
  for (;;) {
    let response: Response;
    try {
      response = await fetch(apiUrl(config.baseUrl, path), {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${config.apiKey}`,
          'Idempotency-Key': idempotencyKey,
        },
        body: payload,
        signal: options.signal,
      });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      const decision = decide({ status: 'network-error', retryAfter: null, attempt });
      if (decision.kind === 'fail') throw new RemoteCallError(decision.message, 'network-error', null);
      if (decision.kind === 'wait') {
        options.onWaiting?.(decision.reason, decision.seconds);
        await sleep(decision.seconds * 1000, options.signal);
      }
      attempt++;
      continue;
    }
    const requestId = response.headers.get('X-Service-Request-ID');
    const refunded = response.headers.get('X-Service-Refunded') === 'true';
    const json = await jsonBody(response);
    const problem = readProblem(json);
    const decision = decide({ status: response.status, retryAfter: response.headers.get('Retry-After'), attempt, waitedSeconds, problemType: problem.type, detail: problem.message });
    if (decision.kind === 'done') {
      const parsed = schema.safeParse(json);
      if (!parsed.success) throw new RemoteCallError('The server answered with an unexpected shape.', response.status, requestId);
      return { data: parsed.data, requestId, refunded, idempotencyKey };
    }
    if (decision.kind === 'fail') throw new RemoteCallError(decision.message, response.status, requestId, problem.type);
    options.onWaiting?.(decision.reason, decision.seconds);
    waitedSeconds += decision.seconds;
    await sleep(decision.seconds * 1000, options.signal);
  }
}

export function remotePvs(config: RemoteConfig, request: z.input<typeof import('../../contract').PvsRequest>, options?: PaidCallOptions): Promise<PaidResult<PvsResponse>> {
  return paidCall(config, '/api/v1/pvs', request satisfies Partial<PvsRequest> | object, PvsResponse, options);
}

export function remoteSegment(config: RemoteConfig, request: SegmentRequest, options?: PaidCallOptions): Promise<PaidResult<SegmentResponse>> {
  return paidCall(config, '/api/v1/segment', request, SegmentResponse, options);
}
