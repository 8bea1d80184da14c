/**
 * One metered call (/pvs, /segment, /everything, /embeddings), whatever pays for it, as explicit phases after Brandur's
 * rocket-rides-atomic. How the call is paid (credits from the ledger, an x402 payment) is a
 * `PaymentMethod`; the phases and their order are the same for every method:
 *
 *   fingerprint + begin   who pays (x402: the payment is decoded, looked up and verified)
 *   peek        (read)    a stored answer under the call's key is replayed, a conflict answered 409
 *   twin?                 the same request under the same key still running here → 409
 *   budget      (read)    the payer's refunded engine runs in the window used up → 429 (refundBudget.ts)
 *   prepare               image checked (400), worker slot reserved (503); local inference may
 *                         start here when the method allows it, its result used only once claimed
 *   claim     → recovery point of the method (credits: key + charge = `charged`; x402: `running`)
 *   engine                outside any transaction, in a worker thread (alongside `whileRunning`)
 *   close     → answered (credits `completed`; x402 settled and stored), emptied or failed
 *
 * What a crash leaves at a recovery point is finished by the method's own recovery (credits:
 * domain/recovery.ts; x402: a running call's lease runs out). The runner speaks no HTTP: it returns
 * a `MeteredOutcome` or throws a DomainError, and the HTTP layer renders both.
 */
import type { DomainError as DomainErrorType } from '../errors';
import { DomainError } from '../errors';
import type { FaultInjector } from '../faults';
import { requestFingerprint } from '../fingerprint';
import { timed, timedSync, type Timings } from '../timings';
import type { Conflict, Decision } from './decision';
import { inProgressRetryAfterSeconds, RunTimes, type Backlog } from './retryAfter';
import { BUDGETED_FAILURES, type RefundBudget } from '../refundBudget';

/** The engine side of a call, prepared before any claim so that bad input is never paid for. */
export interface PreparedWork<Res> {
  run(): Promise<Res>;
  /** Gives back what `prepare` reserved when the call does not go ahead (a queued job is withdrawn). */
  cancel(): void;
  /**
   * The work may start before the claim commits (local inference: the worst a lost race costs is
   * one engine run of our own). Not set for work that costs money elsewhere (the text upstream).
   */
  startsBeforeCharge?: boolean;
}

export interface MeteredCall<Res> {
  endpoint: string;
  method: string;
  path: string;
  requestId: string;
  /** Validated request with defaults applied: the fingerprint covers it. */
  body: unknown;
  idempotencyKey?: string;
  /** Digest of the request's bytes (keyed credit calls): stored so that their retries take the fast path. */
  bodyDigest?: string;
  /** Filled in with the phases' durations (Server-Timing). */
  timings?: Timings;
  forceRefresh: boolean;
  /** Credits the call costs: the price of its pricing key (domain/pricing.ts). Default 1. */
  price?: number;
  /**
   * A call whose answer depends on nothing but content the account sent before (an embedding of a
   * photo) is looked up and claimed under that content instead of an Idempotency-Key or the unkeyed
   * fingerprint: the same photo again from the same account is a replay, whatever key it carries,
   * for as long as a keyed answer is kept. Scoped per payer like every key.
   */
  contentKey?: string;
  /**
   * Check the image, reserve a worker slot… May throw a DomainError (400, 503): nothing is paid.
   * `scope` namespaces client-chosen image ids: the account, or the payer of an x402 payment.
   */
  prepare(scope: string): Promise<PreparedWork<Res>>;
  /** true when the result has no mask at all. */
  isEmpty(result: Res): boolean;
  /** false when the result violates the response schema: never answered as a success. */
  isValid(result: Res): boolean;
}

/** What a call answered. The HTTP layer turns it into status and headers. */
export type MeteredOutcome =
  | { kind: 'answered'; result: unknown; json: string; refunded: boolean; paymentResponse?: string }
  | { kind: 'replayed'; status: number; json: string; originalRequestId: string; refunded: boolean; paymentResponse?: string };

/** The key a call is looked up and claimed under, in its payer's scope. */
export interface RequestKey {
  scope: 'explicit' | 'implicit' | 'content';
  key: string;
}

/** A replay or a conflict: the call is answered without running. */
export type Answered = Exclude<Decision<MeteredOutcome>, { kind: 'new' }>;

export type Claim<Ticket> = { kind: 'claimed'; ticket: Ticket } | Answered;

/** How a call is paid: a third method is one new file implementing this. */
export interface PaymentMethod<Ticket = unknown> {
  /** Who pays, once per call; may answer at once (x402: the same payment again is replayed). */
  begin(call: MeteredCall<unknown>, fingerprint: string): Promise<Payment<Ticket> | Answered>;
}

/** One call's payment, from its peek to its close. */
export interface Payment<Ticket> {
  /** Namespace of the call's keys and of client-chosen image ids (an account id, an x402 payer). */
  readonly scope: string;
  /** Read only: the rules of decision.ts applied to what is stored under the key. */
  peek(key: RequestKey, fingerprint: string): Promise<Decision<MeteredOutcome>>;
  /**
   * Present when the method lets the work start before the claim: throws (e.g. 402) for a payer
   * who could not pay, so that no engine runs for one.
   */
  refuseEarly?(): Promise<void>;
  /** Claims the key (and takes the money, for credits) at the method's recovery point. */
  claim(key: RequestKey, fingerprint: string): Promise<Claim<Ticket>>;
  /** Runs alongside the engine; a failure fails the call (credits: the charge made durable). */
  whileRunning?(ticket: Ticket): Promise<void>;
  /** A valid, non-empty result: stored and released (x402: settled first). */
  succeeded(ticket: Ticket, result: unknown, json: string): Promise<MeteredOutcome>;
  /** A valid result without any mask (credits: kept as a 200 and refunded; x402: 422, not settled). */
  emptied(ticket: Ticket, result: unknown, json: string): Promise<MeteredOutcome>;
  /** After the claim the call failed: returns the error to answer with (refunded or not settled). */
  failed(ticket: Ticket, failure: DomainErrorType): Promise<DomainErrorType>;
}

export interface RunnerOptions {
  /** Retry-After of a 409 refund-pending, and the least of a 409 request-in-progress. */
  inProgressRetryAfterSeconds: number;
  /** The inference workers' backlog now, for the Retry-After of a 409 request-in-progress. */
  backlog?: () => Backlog;
  /** Refunded engine runs per payer and window: checked before any work, counted after a refunded run. */
  refundBudget?: Pick<RefundBudget, 'check' | 'record'>;
}

export class MeteredCalls {
  constructor(
    private readonly faults: FaultInjector,
    private readonly options: RunnerOptions,
  ) {}

  /**
   * Calls of this process not yet settled, by key: the same request again while its twin runs here
   * gets the 409 that the twin's claim would give it, before it reserves a worker slot or starts
   * an engine run that would only be dropped. Across processes the database decides, as always.
   */
  private readonly inFlight = new Map<string, string>();

  /** How long the engine phase of recent calls took: what a colliding call is told to wait. */
  private readonly runTimes = new RunTimes();

  async run<Res>(call: MeteredCall<Res>, method: PaymentMethod): Promise<MeteredOutcome> {
    const fingerprint = timedSync(call.timings, 'idempotency', () => requestFingerprint(call.method, call.path, call.body));
    const begun = await method.begin(call, fingerprint);
    if ('kind' in begun) return this.answer(begun);
    const payment = begun;
    const key: RequestKey = call.contentKey
      ? { scope: 'content', key: call.contentKey }
      : call.idempotencyKey
        ? { scope: 'explicit', key: call.idempotencyKey }
        : { scope: 'implicit', key: fingerprint };

    // A forced refresh without a key is always a new attempt: no key to look up or to hold.
    if (key.scope === 'implicit' && call.forceRefresh) return this.attempt(call, payment, key, fingerprint);

    // Peek: replays and conflicts need no image check, no worker and no write.
    const peeked = await timed(call.timings, 'idempotency', () => payment.peek(key, fingerprint));
    if (peeked.kind !== 'new') return this.answer(peeked);

    const leave = this.enterFlight(`${payment.scope}\u0000${key.scope}\u0000${key.key}`, fingerprint);
    try {
      return await this.attempt(call, payment, key, fingerprint);
    } finally {
      leave();
    }
  }

  /** A replay is the outcome; a conflict is the 409 it stands for. */
  answer(decision: Answered): MeteredOutcome {
    if (decision.kind === 'replay') return decision.stored;
    throw this.conflictError(decision.conflict);
  }

  conflictError(conflict: Conflict): DomainError {
    const retryAfterSeconds = this.options.inProgressRetryAfterSeconds;
    switch (conflict) {
      case 'key-reused':
        return new DomainError('idempotency-key-reused');
      case 'in-progress':
        return new DomainError('request-in-progress', undefined, {
          retryAfterSeconds: inProgressRetryAfterSeconds(retryAfterSeconds, this.runTimes.typicalMs, this.options.backlog?.()),
        });
      case 'refund-pending':
        return new DomainError('refund-pending', undefined, { retryAfterSeconds });
      case 'payment-used':
        return new DomainError('payment-invalid', 'this payment authorization was already used for another request');
    }
  }

  private enterFlight(flight: string, fingerprint: string): () => void {
    const running = this.inFlight.get(flight);
    if (running === fingerprint) throw this.conflictError('in-progress');
    // Another body under the same key: its twin may yet fail before claiming, so the database judges it.
    if (running !== undefined) return () => undefined;
    this.inFlight.set(flight, fingerprint);
    return () => this.inFlight.delete(flight);
  }

  /** A call that is neither a replay nor a conflict so far: prepare, claim, engine, close. */
  private async attempt<Res, Ticket>(call: MeteredCall<Res>, payment: Payment<Ticket>, key: RequestKey, fingerprint: string): Promise<MeteredOutcome> {
    await timed(call.timings, 'budget', async () => this.options.refundBudget?.check(payment.scope));
    const work = await timed(call.timings, 'prepare', () => call.prepare(payment.scope));

    // Local inference starts now, alongside the claim, so that neither the claim's transaction nor
    // the hand-over to the worker thread waits for the other. Its result is used only once the
    // claim has committed; when the claim loses (a duplicate, no credit) the job is withdrawn if
    // still queued, or its answer dropped. A payer who cannot pay is refused before anything starts.
    let running: Promise<Res> | undefined;
    let startedAt = performance.now();
    if (work.startsBeforeCharge && payment.refuseEarly) {
      try {
        await payment.refuseEarly();
      } catch (error) {
        work.cancel();
        throw error;
      }
      running = runWithFaults(this.faults, work);
      running.catch(() => undefined); // observed below once claimed, or abandoned with the claim
      // The claim waits one timer turn so that the worker thread wakes to its job while this
      // thread is idle: a busy event loop slows that hand-over (bench:api, docs/RESULTS.md).
      await new Promise((resolve) => setTimeout(resolve, 0));
    }

    let claim: Claim<Ticket>;
    try {
      claim = await timed(call.timings, 'charge', () => payment.claim(key, fingerprint));
    } catch (error) {
      work.cancel();
      throw error;
    }
    if (claim.kind !== 'claimed') {
      work.cancel();
      return this.answer(claim);
    }
    const { ticket } = claim;

    // Outside any transaction: the engine, and meanwhile what the method does while it runs.
    let result: Res | undefined;
    let failure: DomainError | undefined;
    if (!running) {
      startedAt = performance.now();
      running = runWithFaults(this.faults, work);
    }
    // Started once the job is on its way to the worker: SQLite's flush holds this thread meanwhile.
    const alongside = payment.whileRunning
      ? new Promise<void>((resolve) => setImmediate(resolve)).then(() => payment.whileRunning!(ticket))
      : Promise.resolve();
    try {
      const [ran, beside] = await Promise.allSettled([running, alongside]);
      if (ran.status === 'rejected') throw ran.reason;
      this.runTimes.record(performance.now() - startedAt);
      // A claim that may not be on disk is not answered: it fails like the engine would.
      if (beside.status === 'rejected') throw new DomainError('internal-error', 'the charge could not be made durable');
      result = ran.value;
      const valid = timedSync(call.timings, 'check', () => call.isValid(ran.value));
      if (!valid) failure = new DomainError('invalid-result');
    } catch (error) {
      failure = error instanceof DomainError ? error : new DomainError('engine-failure', error instanceof Error ? error.message : String(error));
    } finally {
      // Frees the worker slot if the call never reached the engine (idempotent otherwise).
      work.cancel();
    }

    if (failure) {
      const answer = await payment.failed(ticket, failure);
      if (BUDGETED_FAILURES.has(failure.slug)) await this.countRefundedRun(payment.scope);
      throw answer;
    }
    // Serialized once: stored for replays and sent as it is.
    const json = JSON.stringify(result ?? null);
    if (result === undefined || call.isEmpty(result)) {
      const outcome = await payment.emptied(ticket, result, json);
      await this.countRefundedRun(payment.scope);
      return outcome;
    }
    return timed(call.timings, 'settle', () => payment.succeeded(ticket, result, json));
  }

  /**
   * Counted after the answer is settled: a count that cannot be written costs the budget one run,
   * never the caller an answer already paid for and refunded.
   */
  private async countRefundedRun(scope: string): Promise<void> {
    try {
      await this.options.refundBudget?.record(scope);
    } catch {
      // The refund itself is durable; the budget is a fairness bound, not a ledger.
    }
  }
}

/** The engine call, with FAULT_INJECTION's engine faults applied. */
export async function runWithFaults<Res>(faults: FaultInjector, work: PreparedWork<Res>): Promise<Res> {
  await faults.delayEngine();
  faults.maybeThrow('engine');
  let result = await work.run();
  if (faults.shouldFail('invalid')) result = corrupt(result);
  if (faults.shouldFail('empty')) result = emptied(result);
  return result;
}

/** FAULT_INJECTION `invalid`: a result that fails the response schema. */
function corrupt<Res>(result: Res): Res {
  return { ...(result as object), corrupted: Number.NaN, prompts: 'corrupted', prompt_results: 'corrupted' } as Res;
}

/** FAULT_INJECTION `empty`: the same structure with every mask removed. */
function emptied<Res>(result: Res): Res {
  const r = result as Record<string, unknown>;
  if (Array.isArray(r.prompts)) {
    return { ...r, prompts: (r.prompts as { predictions: unknown[] }[]).map(() => ({ predictions: [] })) } as Res;
  }
  if (Array.isArray(r.predictions)) return { ...r, predictions: [] } as Res;
  if (Array.isArray(r.prompt_results)) {
    return {
      ...r,
      prompt_results: (r.prompt_results as { echo: unknown }[]).map((p) => ({ echo: p.echo, predictions: [] })),
    } as Res;
  }
  return result;
}
