/**
 * The live stream of a project (issue 38): every change is a row of `project_events`, written in
 * the same transaction as the change, so a reader that resumes from an event id (Last-Event-ID)
 * misses nothing and sees nothing twice. Readers are woken, not polled: in this process directly,
 * and across processes by PostgreSQL's NOTIFY, which is delivered only when the writing
 * transaction commits. With SQLite the writers and the readers are one process.
 *
 * PostgreSQL hands out sequence numbers at insert, not at commit: two transactions could commit
 * their events out of id order and a reader past the later id would skip the earlier. Each
 * transaction that records an event of a project therefore holds that project's advisory lock
 * until it commits, so a project's events commit in id order.
 */
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { sql, type Transaction } from 'kysely';
import type { ProjectEvent } from '../../../contract/jobs';
import type { Db } from '../../db/connect';
import type { Database } from '../../db/schema';
import type { Clock } from '../clock';

export interface StoredEvent {
  id: number;
  event: ProjectEvent;
}

export interface ListenSettings {
  connectionString: string;
  /** The PostgreSQL schema of this deployment (tests isolate themselves in one): the channel is its own. */
  schema?: string;
}

/** How many events one read sends at most: a reader far behind catches up in several reads. */
const READ_BATCH = 500;

/**
 * Readers also look on their own this often: with SQLite, other processes on the same file (a
 * second server, a test's) cannot wake them, and half a second keeps the stream within its second;
 * with PostgreSQL only as a safety net should the LISTEN connection drop.
 */
const LOOK_EVERY_MS = { sqlite: 500, postgres: 5000 } as const;

export class ProjectEvents {
  private readonly wakers = new EventEmitter();
  private listener?: pg.Client;
  private listening?: Promise<void>;
  private readonly channel: string;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly listen?: ListenSettings,
  ) {
    this.wakers.setMaxListeners(0);
    this.channel = `mw_project_events${listen?.schema ? `_${listen.schema}` : ''}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  }

  /** Records `events` of the project inside `trx`; call `wake` once it has committed. */
  async record(trx: Transaction<Database>, projectId: string, events: readonly ProjectEvent[]): Promise<void> {
    if (events.length === 0) return;
    if (this.db.dialect === 'postgres') {
      await sql`select pg_advisory_xact_lock(hashtext(${projectId}))`.execute(trx);
      await sql`select pg_notify(${this.channel}, ${projectId})`.execute(trx);
    }
    const now = this.clock.now();
    await trx
      .insertInto('project_events')
      .values(events.map((event) => ({ project_id: projectId, payload: JSON.stringify(event), created_at: now })))
      .execute();
  }

  /** Records and commits on its own (a change made outside a transaction of ours), then wakes readers here. */
  async publish(projectId: string, events: readonly ProjectEvent[]): Promise<void> {
    await this.db.transaction((trx) => this.record(trx, projectId, events), 'relaxed');
    this.wake(projectId);
  }

  /** Readers of the project in this process read what is new (other processes hear the NOTIFY). */
  wake(projectId: string): void {
    this.wakers.emit(projectId);
  }

  /** Events of the project after `afterId`, oldest first. */
  async read(projectId: string, afterId: number, limit = READ_BATCH): Promise<StoredEvent[]> {
    const rows = await this.db.kysely
      .selectFrom('project_events')
      .select(['id', 'payload'])
      .where('project_id', '=', projectId)
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ id: Number(row.id), event: JSON.parse(row.payload) as ProjectEvent }));
  }

  /** The id of the project's latest event (0 when none): where a new reader without Last-Event-ID starts. */
  async latestId(projectId: string): Promise<number> {
    const row = await this.db.kysely
      .selectFrom('project_events')
      .select((eb) => eb.fn.max('id').as('id'))
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    return Number(row?.id ?? 0);
  }

  /**
   * Sends every event after `afterId`, then each new one as it commits, in order, until the
   * returned function is called. `send` is awaited: a slow reader holds only its own reads back.
   */
  async follow(projectId: string, afterId: number, send: (event: StoredEvent) => Promise<void> | void): Promise<() => void> {
    await this.startListening();
    let last = afterId;
    let reading = false;
    let again = false;
    let stopped = false;
    const drain = async () => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        do {
          again = false;
          let batch: StoredEvent[];
          do {
            batch = await this.read(projectId, last);
            for (const stored of batch) {
              if (stopped) return;
              last = stored.id;
              await send(stored);
            }
          } while (batch.length === READ_BATCH);
        } while (again && !stopped);
      } catch {
        // The database is away for a moment: the next change (or a reconnect with Last-Event-ID) catches up.
      } finally {
        reading = false;
      }
    };
    this.wakers.on(projectId, drain);
    const looking = setInterval(() => void drain(), LOOK_EVERY_MS[this.db.dialect]);
    looking.unref();
    await drain();
    return () => {
      stopped = true;
      clearInterval(looking);
      this.wakers.off(projectId, drain);
    };
  }

  /** PostgreSQL: one connection per process LISTENs and wakes the readers of the project named. */
  private startListening(): Promise<void> {
    if (this.db.dialect !== 'postgres' || !this.listen) return Promise.resolve();
    return (this.listening ??= (async () => {
      const client = new pg.Client({ connectionString: this.listen!.connectionString });
      client.on('notification', (message) => {
        if (message.channel === this.channel && message.payload) this.wakers.emit(message.payload);
      });
      client.on('error', () => {
        // Lost: the next follower connects anew; those following now catch up on their next wake.
        this.listening = undefined;
        this.listener = undefined;
      });
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
      this.listener = client;
    })().catch((error) => {
      this.listening = undefined;
      throw error;
    }));
  }

  async close(): Promise<void> {
    const client = this.listener;
    this.listener = undefined;
    this.listening = undefined;
    await client?.end().catch(() => undefined);
  }
}
