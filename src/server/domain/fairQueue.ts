/**
 * The order in which waiting inference jobs reach the workers: fair between accounts, not first
 * come first served. Each account has its own FIFO; the next job comes from the waiting account
 * that has used the least worker time so far (start-time fair queueing, the idea behind deficit
 * round-robin with the real cost of each job instead of a fixed quantum). An account flooding
 * the queue with encoder runs (a new photo each time: hundreds of ms each) therefore cannot make
 * another account's clicks (a decoder run each) wait behind its whole backlog: they wait at most
 * for the job already running. Equal users with equal jobs alternate (round-robin).
 *
 * An account that starts waiting again is brought up to the virtual time (the usage of the last
 * account served), so time spent idle is not banked as credit against the others; usage above the
 * virtual time is kept, so a flooder that pauses for a moment does not start afresh.
 */
export class FairQueue<T> {
  private readonly accounts = new Map<string, { used: number; jobs: { item: T; seq: number }[] }>();
  /** The usage of the account served last: where a newly waiting account starts. */
  private virtualTime = 0;
  private seq = 0;

  get size(): number {
    let n = 0;
    for (const a of this.accounts.values()) n += a.jobs.length;
    return n;
  }

  push(account: string, item: T): void {
    let entry = this.accounts.get(account);
    if (!entry) {
      entry = { used: this.virtualTime, jobs: [] };
      this.accounts.set(account, entry);
    } else if (entry.jobs.length === 0) {
      entry.used = Math.max(entry.used, this.virtualTime);
    }
    entry.jobs.push({ item, seq: this.seq++ });
  }

  /** Takes `item` out of the queue (a withdrawn job); false when it was not waiting. */
  remove(account: string, item: T): boolean {
    const jobs = this.accounts.get(account)?.jobs;
    const index = jobs ? jobs.findIndex((j) => j.item === item) : -1;
    if (index === -1) return false;
    jobs!.splice(index, 1);
    return true;
  }

  /**
   * The next job: from the account with the least usage among those waiting whose oldest job
   * `eligible` admits (e.g. under their concurrency), the oldest job first among equals.
   */
  next(eligible: (account: string, item: T) => boolean = () => true): { account: string; item: T } | undefined {
    let best: { account: string; used: number; seq: number } | undefined;
    for (const [account, entry] of this.accounts) {
      if (entry.jobs.length === 0 || !eligible(account, entry.jobs[0].item)) continue;
      const seq = entry.jobs[0].seq;
      if (!best || entry.used < best.used || (entry.used === best.used && seq < best.seq)) best = { account, used: entry.used, seq };
    }
    if (!best) return undefined;
    const entry = this.accounts.get(best.account)!;
    this.virtualTime = Math.max(this.virtualTime, entry.used);
    return { account: best.account, item: entry.jobs.shift()!.item };
  }

  /** Adds the worker time a finished job of `account` took to its usage. */
  charge(account: string, cost: number): void {
    const entry = this.accounts.get(account);
    // Forgotten while its job ran: it starts from the virtual time like any returning account.
    if (entry) entry.used += cost;
    else this.accounts.set(account, { used: this.virtualTime + cost, jobs: [] });
    this.forgetIdle();
  }

  /**
   * The workers went idle with nothing waiting: nobody was kept waiting by anyone's usage, so all
   * of it is forgotten (as start-time fair queueing restarts its virtual time after a busy period).
   */
  forgetUsage(): void {
    if (this.size > 0) return;
    this.accounts.clear();
    this.virtualTime = 0;
  }

  /** Accounts with nothing waiting and no usage above the virtual time are forgotten (they would start there anyway). */
  private forgetIdle(): void {
    for (const [account, entry] of this.accounts) {
      if (entry.jobs.length === 0 && entry.used <= this.virtualTime) this.accounts.delete(account);
    }
  }
}
