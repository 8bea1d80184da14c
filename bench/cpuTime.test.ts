import { describe, expect, it } from 'vitest';
import { parseStat, processTreeCpuMs, treeTicks } from './cpuTime';

describe('parseStat', () => {
  it('reads pid, parent and user + system ticks, even with a command name holding spaces and parentheses', () => {
    const line = '4242 (chrome (renderer) x) S 17 4242 17 0 -1 4194560 100 0 0 0 250 31 0 0 20 0 12 0 900 1000 200';
    expect(parseStat(line)).toEqual({ pid: 4242, ppid: 17, ticks: 281 });
  });

  it('rejects a line that is not a stat line', () => {
    expect(parseStat('garbage')).toBeUndefined();
  });
});

describe('treeTicks', () => {
  it('sums a process and all its descendants, not its siblings', () => {
    const processes = [
      { pid: 1, ppid: 0, ticks: 5 },
      { pid: 10, ppid: 1, ticks: 1 },
      { pid: 11, ppid: 10, ticks: 2 },
      { pid: 12, ppid: 11, ticks: 4 },
      { pid: 20, ppid: 1, ticks: 100 },
    ];
    expect(treeTicks(processes, 10)).toBe(7);
    expect(treeTicks(processes, 99)).toBe(0);
  });

  it('counts this process’s own work', () => {
    const before = processTreeCpuMs()!;
    let x = 0;
    for (let i = 0; i < 3e7; i++) x += Math.sqrt(i);
    expect(x).toBeGreaterThan(0);
    expect(processTreeCpuMs()!).toBeGreaterThan(before);
  });
});
