/** The CLI as users run it: a child process, stdout parsed with the contract, exit codes checked. */
import { execFile } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PvsResponse } from '../contract';
import { sharedPath } from '../../test/support/sharedData';

const repoRoot = resolve(__dirname, '../..');
const tsx = join(repoRoot, 'node_modules/.bin/tsx');
const COFFEE = sharedPath('samples/coffee.png');

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(tsx, ['src/cli/main.ts', ...args], { cwd: repoRoot, timeout: 120_000 }, (err, stdout, stderr) => {
      done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('cli pvs', () => {
  it('prints exactly one PvsResponse JSON document on stdout', async () => {
    const { code, stdout, stderr } = await cli('pvs', '--image', COFFEE, '--point', '250,230', '--point', '370,285,neg', '--image-id', 'coffee', '--timings');
    expect(code, stderr).toBe(0);
    const response = PvsResponse.parse(JSON.parse(stdout));
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(response.imageId).toBe('coffee');
    expect(response.prompts[0].predictions.length).toBeGreaterThan(1);
    for (const p of response.prompts[0].predictions) {
      for (const polygon of p.masks) {
        for (const [x, y] of polygon) {
          expect(x).toBeGreaterThanOrEqual(0);
          expect(x).toBeLessThanOrEqual(600);
          expect(y).toBeGreaterThanOrEqual(0);
          expect(y).toBeLessThanOrEqual(400);
        }
      }
    }
    expect(stderr).toMatch(/encoderMs=/);
  });

  it('averages with the mirror image by default (the engine\'s rule); --no-mirror-average takes one look', async () => {
    const run = (...extra: string[]) => cli('pvs', '--image', COFFEE, '--point', '250,230', '--no-multimask', ...extra);
    const [averaged, oneLook] = await Promise.all([run(), run('--no-mirror-average')]);
    const outline = ({ code, stdout, stderr }: { code: number; stdout: string; stderr: string }) => {
      expect(code, stderr).toBe(0);
      const [prediction] = PvsResponse.parse(JSON.parse(stdout)).prompts[0].predictions;
      const xs = prediction.masks[0].map(([x]) => x);
      expect(Math.min(...xs)).toBeLessThan(250); // both answer the click on the cup
      expect(Math.max(...xs)).toBeGreaterThan(250);
      return prediction.masks[0];
    };
    expect(outline(averaged)).not.toEqual(outline(oneLook));
  });

  const notAnImage = join(mkdtempSync(join(tmpdir(), 'mw-cli-')), 'notes.png');
  writeFileSync(notAnImage, 'this is text, not a PNG');

  it.each([
    ['an unknown option', ['pvs', '--image', COFFEE, '--point', '1,1', '--colour', 'red'], /unknown option --colour/],
    ['a malformed point', ['pvs', '--image', COFFEE, '--point', '12,abc'], /not a number/],
    ['a point with three numbers', ['pvs', '--image', COFFEE, '--point', '1,2,3,4'], /expected X,Y/],
    ['a malformed box', ['pvs', '--image', COFFEE, '--box', '10,10,5'], /expected 4 comma-separated numbers/],
    ['a box with zero width', ['pvs', '--image', COFFEE, '--box', '10,10,0,5'], /width\/height > 0/],
    ['a negative coordinate', ['pvs', '--image', COFFEE, '--point', '-5,10'], /≥ 0/],
    ['no prompt', ['pvs', '--image', COFFEE], /a prompt is required/],
    ['only negative points', ['pvs', '--image', COFFEE, '--point', '10,10,neg'], /a prompt is required/],
    ['no image', ['pvs', '--point', '10,10'], /--image FILE is required/],
    ['a missing file', ['pvs', '--image', '/nonexistent/photo.png', '--point', '10,10'], /no such file/],
    ['a file that is not an image', ['pvs', '--image', notAnImage, '--point', '10,10'], /not a readable image/],
    ['an unknown command', ['paint'], /unknown command "paint"/],
  ])('rejects %s with a message and a non-zero exit', async (_what, args, message) => {
    const { code, stdout, stderr } = await cli(...args);
    expect(code).not.toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
  });
});
