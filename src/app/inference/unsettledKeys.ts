import { RemoteCallError } from '../remote/remoteClient';
import { newIdempotencyKey } from '../remote/retryPolicy';

/**
 * The Idempotency-Key of each paid action, kept while the action's outcome is unknown: when the
 * connection dropped after every automatic retry, the server may have run and charged the call.
 * Pressing the button again then sends the same key, so a call that did succeed is returned from
 * the server's store instead of being charged twice. Any answer (success or a definite error)
 * settles the action and frees its key.
 */
export class UnsettledKeys {
  private readonly keys = new Map<string, string>();

  constructor(private readonly mint: () => string = newIdempotencyKey) {}

  /** The key for this action: the unsettled one if there is one, else a new one. */
  keyFor(action: string): string {
    let key = this.keys.get(action);
    if (!key) {
      key = this.mint();
      this.keys.set(action, key);
    }
    return key;
  }

  succeeded(action: string): void {
    this.keys.delete(action);
  }

  /** Keeps the key only when the failure leaves the outcome unknown (no answer from the server). */
  failed(action: string, error: unknown): void {
    if (!(error instanceof RemoteCallError && error.status === 'network-error')) this.keys.delete(action);
  }
}
