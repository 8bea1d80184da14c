/** `everything` as users run it: a child process, stdout parsed with the contract, exit codes checked. */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EverythingResponse } from '../contract';
import { UsageError } from './args';
import { parseEverythingArgs } from './everything';
import { sharedPath } from '../../test/support/sharedData';

const repoRoot = resolve(__dirname, '../..');
const tsx = join(repoRoot, 'node_modules/.bin/tsx');
const CHELSEA = sharedPath('samples/chelsea.png');

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(tsx, ['src/cli/main.ts', ...args], { cwd: repoRoot, timeout: 300_000 }, (err, stdout, stderr) => {
      done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('cli everything', () => {
  it('prints exactly one EverythingResponse JSON document: the cat from the detector first, progress on stderr', async () => {
    const { code, stdout, stderr } = await cli('everything', '--image', CHELSEA, '--threads', '1', '--progress');
    expect(code, stderr).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    const response = EverythingResponse.parse(JSON.parse(stdout));
    expect(response.predictions.length).toBeGreaterThan(0);
    expect(response.predictions.some((p) => p.source === 'detector' && p.label === 'cat')).toBe(true);
    const confidences = response.predictions.map((p) => p.confidence);
    expect(confidences).toEqual([...confidences].sort((a, b) => b - a));
    expect(stderr).toMatch(/\[everything\] grid: \d+\/\d+ decoder runs/);
  }, 300_000);

  it('rejects an unknown rule and a missing image with exit code 2', async () => {
    expect(() => parseEverythingArgs(['--image', 'x.png', '--rule', 'all'])).toThrow(UsageError);
    expect(() => parseEverythingArgs([])).toThrow(UsageError);
    expect(parseEverythingArgs(['--image', 'x.png']).rule).toBe('objects');
    expect(parseEverythingArgs(['--image', 'x.png', '--rule', 'thorough']).rule).toBe('thorough');
    const noFile = await cli('everything', '--image', '/nonexistent.png');
    expect(noFile.code).toBe(2);
    expect(noFile.stdout).toBe('');
  }, 60_000);
});
