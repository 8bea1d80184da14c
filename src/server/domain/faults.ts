/**
 * FAULT_INJECTION (testing only): `engine=0.3,refund=0.25` makes that fraction of engine calls or
 * refund attempts fail, so the refund and retry paths can be exercised against a running server.
 * Kinds: engine (the call throws), invalid (the result is corrupted), empty (the result has no masks),
 * refund (applying a refund fails and is left for the retry loop). `engine_delay_ms=N` is not a
 * rate: it holds every engine call N ms, so tests can act while a request is surely in flight.
 */
export const FAULT_KINDS = ['engine', 'invalid', 'empty', 'refund'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export type FaultRates = Partial<Record<FaultKind, number>> & { engine_delay_ms?: number };

export function parseFaultInjection(spec: string | undefined): FaultRates {
  const rates: FaultRates = {};
  if (!spec?.trim()) return rates;
  for (const part of spec.split(',')) {
    const [name, value] = part.split('=').map((s) => s.trim());
    if (name === 'engine_delay_ms') {
      const ms = Number(value);
      if (!Number.isFinite(ms) || ms < 0) throw new Error(`FAULT_INJECTION: engine_delay_ms must be a non-negative number, got "${value}"`);
      rates.engine_delay_ms = ms;
      continue;
    }
    if (!(FAULT_KINDS as readonly string[]).includes(name)) {
      throw new Error(`FAULT_INJECTION: unknown kind "${name}" (known: ${FAULT_KINDS.join(', ')}, engine_delay_ms)`);
    }
    const rate = Number(value);
    if (!Number.isFinite(rate) || rate < 0 || rate > 1) {
      throw new Error(`FAULT_INJECTION: rate for ${name} must be a number in [0, 1], got "${value}"`);
    }
    rates[name as FaultKind] = rate;
  }
  return rates;
}

export class InjectedFault extends Error {
  constructor(readonly kind: FaultKind) {
    super(`injected ${kind} fault (FAULT_INJECTION)`);
  }
}

export class FaultInjector {
  constructor(
    public rates: FaultRates = {},
    private readonly random: () => number = Math.random,
  ) {}
  shouldFail(kind: FaultKind): boolean {
    const rate = this.rates[kind] ?? 0;
    return rate > 0 && this.random() < rate;
  }
  maybeThrow(kind: FaultKind): void {
    if (this.shouldFail(kind)) throw new InjectedFault(kind);
  }
  get active(): boolean {
    return Object.values(this.rates).some((r) => (r ?? 0) > 0);
  }
  /** FAULT_INJECTION engine_delay_ms. */
  async delayEngine(): Promise<void> {
    const ms = this.rates.engine_delay_ms ?? 0;
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
  }
}
