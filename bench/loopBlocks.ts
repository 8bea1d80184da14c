/**
 * The server's event-loop blocks as a benchmark reads them: it starts the server with
 * LOOP_BLOCK_LOG naming a file of its own (src/server/loopBlockLog.ts) and reads the blocks
 * written during each piece of work.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoopBlock } from '../src/server/loopBlockLog';

export interface LongestBlock {
  wallMs: number;
  cpuMs: number;
}

export class LoopBlockFile {
  private readonly dir = mkdtempSync(join(tmpdir(), 'mw-bench-loop-blocks-'));
  /** Pass as LOOP_BLOCK_LOG to the server. */
  readonly path = join(this.dir, 'loop-blocks.jsonl');

  /** Every block written so far, from the `from`th on. */
  read(from = 0): LoopBlock[] {
    let text = '';
    try {
      text = readFileSync(this.path, 'utf8');
    } catch {
      return [];
    }
    return text.split('\n').filter(Boolean).slice(from).map((line) => JSON.parse(line) as LoopBlock);
  }

  /** The blocks written while `work` ran (the one that ends as it answers included). */
  async during<T>(work: () => Promise<T>): Promise<{ value: T; blocks: LoopBlock[] }> {
    const before = this.read().length;
    const value = await work();
    // A block is written by the server's timer when it ends: give that a moment.
    await new Promise((r) => setTimeout(r, 50));
    return { value, blocks: this.read(before) };
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The longest block by main-thread CPU, and the longest in wall time (either 0 when none reached the log's threshold). */
export function longestBlock(blocks: LoopBlock[]): LongestBlock {
  return { wallMs: Math.max(0, ...blocks.map((b) => b.wallMs)), cpuMs: Math.max(0, ...blocks.map((b) => b.cpuMs)) };
}
