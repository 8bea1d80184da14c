import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { evalCommandLine } from './commandLine';

const evalCoco = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', '-e', `import('./bench/evalCoco/main.ts').then((m) => m.runCocoEval(${JSON.stringify(args)}))`], { encoding: 'utf8' });

describe("the coco eval modes' one command line", () => {
  it('reads the shared options and the mode’s own', () => {
    const values = evalCommandLine('eval coco test', 'usage', { rules: { type: 'string' } }).parse(['--dataset', 'coco', '--data', 'd', '--rules', 'a,b', '--limit', '3']);
    expect(values).toMatchObject({ dataset: 'coco', data: 'd', rules: 'a,b', limit: '3' });
  });

  it('ends every mode on a wrong argument with its own name and usage, exit 2, nothing run', () => {
    for (const [mode, name] of [
      ['text', 'eval coco:'],
      ['everything', 'eval coco everything:'],
      ['exemplar', 'eval coco exemplar:'],
      ['learn', 'eval coco learn:'],
    ]) {
      const run = evalCoco('--dataset', 'coco', '--mode', mode, '--no-such-option');
      expect(run.status, mode).toBe(2);
      expect(run.stderr, mode).toContain(`${name} Unknown option '--no-such-option'`);
      expect(run.stderr, mode).toContain('usage: npm run eval -- --dataset coco');
    }
  });

  it('prints the usage on --help and runs nothing', () => {
    const run = evalCoco('--mode', 'exemplar', '--help', '--data', '/nowhere');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^usage: npm run eval -- --dataset coco --mode exemplar/);
  });
});
