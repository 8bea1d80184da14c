/**
 * The bench's Server start leg: a real API server in this process (temporary SQLite, the server's
 * default encoder), an account with an API key and demo credits, and "new" 1024 px photos — the
 * bench image scaled to 1024 px on its long side, each copy made unique by a JPEG comment so the
 * server has never seen it (no replay, no cached embedding) while its pixels stay the same.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { configFromEnv } from '../src/server/config';
import { startServer } from '../src/server/server';

export interface BenchApi {
  url: string;
  apiKey: string;
  /** The encoder the server runs (`file@sha256`). */
  encoder: string;
  close(): Promise<void>;
}

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return response;
}

export async function startBenchApi(): Promise<BenchApi> {
  const dir = mkdtempSync(join(tmpdir(), 'mw-bench-api-'));
  const server = await startServer({
    config: { ...configFromEnv({}), port: 0, host: '127.0.0.1', staticDir: join(dir, 'no-static'), rateLimitPerSecond: 100 },
    database: { sqliteFile: join(dir, 'bench.sqlite') },
    logger: false,
    backgroundLoops: false,
  });
  const encoder = (await server.services.backend.encoderModel!()).id;
  const signup = await postJson(`${server.url}/api/v1/auth/signup`, { email: `bench-${Date.now()}@example.test`, password: 'bench password 1234' });
  const cookies = signup.headers.getSetCookie().map((c) => c.split(';')[0]);
  const csrf = cookies.find((c) => c.startsWith('mw_csrf='))!.slice('mw_csrf='.length);
  const created = await postJson(`${server.url}/api/v1/api-keys`, {}, { cookie: cookies.join('; '), 'x-csrf-token': csrf });
  const { key } = (await created.json()) as { key: string };
  // Demo payment mode (no Stripe, loopback listener): credits for every run.
  await postJson(`${server.url}/api/v1/credit-purchases`, { packageId: 'lite' }, { authorization: `Bearer ${key}` });
  return {
    url: server.url,
    apiKey: key,
    encoder,
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `count` JPEG files of the image at 1024 px on its long side, equal pixels, different bytes. */
export async function newPhotos(imageBytes: Buffer, count: number): Promise<Buffer[]> {
  const base = await sharp(imageBytes).resize({ width: 1024, height: 1024, fit: 'inside' }).jpeg({ quality: 90 }).toBuffer();
  return Array.from({ length: count }, (_, i) => {
    const text = Buffer.from(`maskwright bench photo ${i} ${Date.now()}`);
    const comment = Buffer.alloc(4);
    comment.writeUInt16BE(0xfffe, 0);
    comment.writeUInt16BE(text.length + 2, 2);
    // Right after SOI: decoders skip COM segments.
    return Buffer.concat([base.subarray(0, 2), comment, text, base.subarray(2)]);
  });
}
