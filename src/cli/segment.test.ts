/** `segment` as users run it: a child process, stdout parsed with the contract, exit codes checked. */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SegmentResponse } from '../contract';
import { UsageError } from './args';
import { parseSegmentArgs } from './segment';
import { sharedPath } from '../../test/support/sharedData';

const repoRoot = resolve(__dirname, '../..');
const tsx = join(repoRoot, 'node_modules/.bin/tsx');
const CHELSEA = sharedPath('samples/chelsea.png');

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(tsx, ['src/cli/main.ts', ...args], { cwd: repoRoot, timeout: 120_000 }, (err, stdout, stderr) => {
      done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('cli segment', () => {
  it('prints exactly one SegmentResponse JSON document, one result per prompt in order', async () => {
    const { code, stdout, stderr } = await cli('segment', '--image', CHELSEA, '--prompt', 'cat', '--prompt', 'zebra-striped spaceship', '--threads', '1', '--explain');
    expect(code, stderr).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    const response = SegmentResponse.parse(JSON.parse(stdout));
    expect(response.prompt_results.map((r) => r.echo.text)).toEqual(['cat', 'zebra-striped spaceship']);
    expect(response.prompt_results[0].predictions.map((p) => p.label)).toEqual(['cat']);
    expect(response.prompt_results[1].predictions).toEqual([]);
    expect(stderr).toMatch(/"zebra-striped spaceship" → unknown/);
  });

  it('rejects a missing prompt and a missing image with exit code 2', async () => {
    const noPrompt = await cli('segment', '--image', CHELSEA);
    expect(noPrompt.code).toBe(2);
    expect(noPrompt.stderr).toMatch(/at least one --prompt/);
    expect(noPrompt.stdout).toBe('');
    const noFile = await cli('segment', '--image', '/nonexistent.png', '--prompt', 'cat');
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toMatch(/no such file/);
  });

  it('validates prompts like the API', () => {
    expect(() => parseSegmentArgs(['--image', 'x.png', '--prompt', ''])).toThrow(UsageError);
    expect(() => parseSegmentArgs(['--image', 'x.png', ...Array.from({ length: 17 }, () => ['--prompt', 'cat']).flat()])).toThrow(UsageError);
    expect(parseSegmentArgs(['--image', 'x.png', '--prompt', 'cat', '--prompt', 'dog']).prompts).toEqual(['cat', 'dog']);
  });
});
