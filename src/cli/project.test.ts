/** `project export` as users run it: a child process against a real server and database. */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readZip } from '../annotations/formats/zip';
import { NO_INFERENCE, sampleBase64, signupUser, startTestServer, type TestServer, type TestUser } from '../../test/support/server/harness';
import { parseProjectArgs } from './projectCommand';

const repoRoot = resolve(__dirname, '../..');
const tsx = join(repoRoot, 'node_modules/.bin/tsx');

function cli(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(tsx, ['src/cli/main.ts', ...args], { cwd: repoRoot, timeout: 120_000, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('cli project export', () => {
  let server: TestServer;
  let owner: TestUser;
  let projectId: string;
  beforeAll(async () => {
    server = await startTestServer({ db: 'sqlite', backend: NO_INFERENCE });
    owner = await signupUser(server);
    const post = (path: string, json: unknown) => server.fetch(path, { method: 'POST', headers: owner.bearer, json });
    projectId = ((await (await post('/api/v1/projects', { name: 'Cups', classes: [{ id: 1, name: 'cup', color: '#ff5c5c' }] })).json()) as { id: string }).id;
    const image = (await (await post(`/api/v1/projects/${projectId}/images`, { name: 'coffee.png', image: sampleBase64('coffee.png') })).json()) as { id: string };
    const objects = [{ id: 'o1', classId: 1, polygons: [{ outer: [[100, 100], [300, 100], [300, 300], [100, 300]], holes: [] }] }];
    expect((await server.fetch(`/api/v1/projects/${projectId}/images/${image.id}/annotations`, { method: 'PUT', headers: owner.bearer, json: { revision: 0, objects } })).status).toBe(200);
  });
  afterAll(async () => server?.cleanup());

  it('prints the COCO export the server gives, with the key from MASKWRIGHT_API_KEY', async () => {
    const { code, stdout, stderr } = await cli({ MASKWRIGHT_API_KEY: owner.key, MASKWRIGHT_API_URL: server.url }, 'project', 'export', '--project', projectId, '--format', 'coco');
    expect(code, stderr).toBe(0);
    const coco = JSON.parse(stdout) as { images: Array<{ file_name: string }>; annotations: Array<{ bbox: number[]; category_id: number }>; categories: Array<{ name: string }> };
    expect(coco.images.map((i) => i.file_name)).toEqual(['coffee.png']);
    expect(coco.annotations.map((a) => [a.category_id, a.bbox])).toEqual([[1, [100, 100, 200, 200]]]);
    expect(coco.categories.map((c) => c.name)).toEqual(['cup']);
  });

  it('writes the YOLO zip to --out, refuses a zip on the terminal, and explains a project it cannot see', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'mw-cli-')), 'cups.zip');
    const ok = await cli({ MASKWRIGHT_API_URL: server.url }, 'project', 'export', '--project', projectId, '--format', 'yolo', '--out', out, '--api-key', owner.key);
    expect(ok.code, ok.stderr).toBe(0);
    expect((await readZip(new Uint8Array(readFileSync(out)))).map((f) => f.name).sort()).toEqual(['data.yaml', 'labels/coffee.txt']);
    const toTerminal = await cli({ MASKWRIGHT_API_KEY: owner.key, MASKWRIGHT_API_URL: server.url }, 'project', 'export', '--project', projectId, '--format', 'voc');
    expect(toTerminal.code).toBe(2);
    expect(toTerminal.stdout).toBe('');
    expect(toTerminal.stderr).toContain('give --out FILE');
    const stranger = await signupUser(server);
    const refused = await cli({ MASKWRIGHT_API_KEY: stranger.key, MASKWRIGHT_API_URL: server.url }, 'project', 'export', '--project', projectId, '--format', 'coco');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('404 /problems/not-found');
  });

  it('refuses a command line without a key or with an unknown format', () => {
    expect(() => parseProjectArgs(['export', '--project', 'p', '--format', 'coco'], {})).toThrow(/MASKWRIGHT_API_KEY/);
    expect(() => parseProjectArgs(['export', '--project', 'p', '--format', 'tfrecord'], { MASKWRIGHT_API_KEY: 'k' })).toThrow(/one of coco, yolo-detection, yolo, png-masks/);
    expect(parseProjectArgs(['export', '--project', 'p', '--format', 'coco', '--server', 'http://h:1/'], { MASKWRIGHT_API_KEY: 'k' })).toEqual({ projectId: 'p', format: 'coco', out: undefined, server: 'http://h:1', apiKey: 'k' });
  });
});
