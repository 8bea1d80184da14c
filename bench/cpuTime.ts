/**
 * CPU time (user + system, every thread) of this process and all its descendants — Chromium's
 * browser, renderer and GPU processes with their workers and ORT threads — read from Linux /proc.
 * Wall time alone hides how much of the two shared cores a step used; CPU time beside it does not.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface StatFields {
  pid: number;
  ppid: number;
  /** user + system clock ticks */
  ticks: number;
}

/** Parses one /proc/<pid>/stat line; the command name may contain spaces and parentheses. */
export function parseStat(line: string): StatFields | undefined {
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(line.slice(0, open).trim());
  const rest = line.slice(close + 2).split(' ');
  // rest[0] = state (field 3); ppid is field 4, utime 14, stime 15.
  const ppid = Number(rest[1]);
  const ticks = Number(rest[11]) + Number(rest[12]);
  return Number.isFinite(pid) && Number.isFinite(ppid) && Number.isFinite(ticks) ? { pid, ppid, ticks } : undefined;
}

/** Sum of `ticks` over `root` and every process below it. */
export function treeTicks(processes: readonly StatFields[], root: number): number {
  const children = new Map<number, StatFields[]>();
  for (const p of processes) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  let total = 0;
  const stack = processes.filter((p) => p.pid === root);
  while (stack.length > 0) {
    const p = stack.pop()!;
    total += p.ticks;
    stack.push(...(children.get(p.pid) ?? []));
  }
  return total;
}

let ticksPerSecond: number | undefined;

/** Milliseconds of CPU used so far by this process tree, or undefined where there is no /proc. */
export function processTreeCpuMs(root = process.pid): number | undefined {
  try {
    ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    const processes: StatFields[] = [];
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = parseStat(readFileSync(`/proc/${entry}/stat`, 'utf8'));
        if (stat) processes.push(stat);
      } catch {
        // the process ended while we looked
      }
    }
    return (treeTicks(processes, root) * 1000) / ticksPerSecond;
  } catch {
    return undefined;
  }
}
