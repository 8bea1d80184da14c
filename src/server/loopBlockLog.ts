/**
 * LOOP_BLOCK_LOG=<file>: a record of every time the server's event loop was held in one piece for
 * longer than a threshold, and which requests were in flight then. A /health probe waits for the
 * longest such block, so this names the code that must move off the main thread (issue 39), where
 * wall-clock latency alone mixes it up with the machine's load.
 *
 * A timer due every `tickMs` measures how late it ran (the block, in wall time) and how much CPU
 * the main thread used since the tick before (from /proc, Linux: the block's own work, whatever
 * else the machine runs). One JSON line per block:
 *   {"at":<epoch ms at its end>,"wallMs":…,"cpuMs":…,"inFlight":["GET /api/v1/projects/{id}/export?format=coco", …]}
 */
import { appendFileSync, readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface LoopBlock {
  at: number;
  wallMs: number;
  /** NaN where /proc is not readable. */
  cpuMs: number;
  inFlight: string[];
}

/** An id we issue (`prj_…`, `img-…`) or any long segment with a digit in it. */
const ID_SEGMENT = /^(?:[a-z]{2,5}[_-][A-Za-z0-9_-]{6,}|(?=.*\d)[A-Za-z0-9_-]{8,})$/;

/**
 * What a request is, without whose it is: ids in the path become `{id}`; the query is dropped but
 * for an export's `format` (each format's writer is its own piece of work).
 */
export function requestKind(method: string, url: string): string {
  const [path, query = ''] = url.split('?', 2);
  const shape = path
    .split('/')
    .map((segment) => (ID_SEGMENT.test(segment) ? '{id}' : segment))
    .join('/');
  const format = new URLSearchParams(query).get('format');
  return `${method} ${shape}${format ? `?format=${format}` : ''}`;
}

/** CPU time the calling thread (the event loop's) has run, in ms. */
function loopThreadCpuMs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return NaN;
  }
}

export interface LoopBlockLogOptions {
  tickMs?: number;
  /** Blocks shorter than this (beyond the tick) are not written. */
  minBlockMs?: number;
  /** Where a block goes; by default a JSON line appended to `file`. */
  write?: (block: LoopBlock) => void;
}

export class LoopBlockLog {
  private readonly inFlight = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(file: string | undefined, options: LoopBlockLogOptions = {}) {
    const tickMs = options.tickMs ?? 5;
    const minBlockMs = options.minBlockMs ?? 20;
    const write = options.write ?? ((block: LoopBlock) => appendFileSync(file!, `${JSON.stringify(block)}\n`));
    let lastTick = performance.now();
    let lastCpu = loopThreadCpuMs();
    this.timer = setInterval(() => {
      const now = performance.now();
      const cpu = loopThreadCpuMs();
      const wallMs = now - lastTick - tickMs;
      if (wallMs >= minBlockMs) write({ at: Date.now(), wallMs, cpuMs: cpu - lastCpu, inFlight: [...this.inFlight.keys()] });
      lastTick = now;
      lastCpu = cpu;
    }, tickMs);
    this.timer.unref();
  }

  /** Keeps track of the requests `server` is answering, by kind. */
  watch(server: Server): void {
    // Before the server's own handler, so that the work it does at once is counted to the request.
    server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
      const kind = requestKind(request.method ?? '?', request.url ?? '');
      this.inFlight.set(kind, (this.inFlight.get(kind) ?? 0) + 1);
      response.once('close', () => {
        const left = (this.inFlight.get(kind) ?? 1) - 1;
        if (left > 0) this.inFlight.set(kind, left);
        else this.inFlight.delete(kind);
      });
    });
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
