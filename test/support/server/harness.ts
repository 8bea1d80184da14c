/**
 * Test harness for the server suites: a real server listening on an ephemeral port, a real
 * database (a temporary SQLite file, or a fresh schema in TEST_DATABASE_URL's PostgreSQL), real
 * HTTP through fetch, and the ledger invariant checked after every test.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
import sharp from 'sharp';
import { expect } from 'vitest';
import { configFromEnv, type ServerConfig } from '../../../src/server/config';
import type { OpenDatabaseOptions } from '../../../src/server/db/connect';
import { TestClock } from '../../../src/server/domain/clock';
import type { FaultRates } from '../../../src/server/domain/faults';
import { ledgerMismatches } from '../../../src/server/domain/ledger';
import type { EngineJob, InferenceBackend } from '../../../src/server/inference/pool';
import { WorkerPool } from '../../../src/server/inference/pool';
import { DecodedPhotos } from '../../../src/server/domain/decodedPhotos';
import type { JobPhoto } from '../../../src/server/domain/engineJobs';
import { startServer, type RunningServer } from '../../../src/server/server';

/** The sample photos committed with the app (public/samples). */
export const SAMPLES_DIR = process.env.SAMPLES_DIR ?? resolve(import.meta.dirname, '../../../public/samples');
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

/** The database kinds to run a suite against: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const DATABASES: ('sqlite' | 'postgres')[] = TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export function sampleBase64(name = 'chelsea.png'): string {
  return readFileSync(join(SAMPLES_DIR, name)).toString('base64');
}

/** No inference at all: for suites that never reach the engine (a metered call would get 503). */
export const NO_INFERENCE: InferenceBackend = {
  tryReserve: () => undefined,
  description: 'none (test)',
  close: async () => undefined,
};

/**
 * A real backend that counts the jobs handed to it: shows whether a call reached the engine, and
 * whether its job carried the image file or named a known one by digest only.
 */
export function countingJobs(backend: InferenceBackend): InferenceBackend & { jobs: number; jobsWithImage: number } {
  const counted = {
    jobs: 0,
    jobsWithImage: 0,
    description: backend.description,
    close: () => backend.close(),
    backlog: backend.backlog && (() => backend.backlog!()),
    encoderModel: backend.encoderModel && (() => backend.encoderModel!()),
    tryReserve() {
      const slot = backend.tryReserve();
      if (!slot) return undefined;
      return {
        run: <Result>(job: EngineJob<Result>) => {
          counted.jobs += 1;
          if (job.withFile) counted.jobsWithImage += 1;
          return slot.run(job);
        },
        release: () => slot.release(),
      };
    },
  };
  return counted;
}

/**
 * A photo for engine jobs (domain/engineJobs.ts) in tests of the pool: `key` names its pixels and
 * embedding, `load` gives its file (counted in `loads`, so a test sees when the pixels were needed).
 */
export function jobPhoto(key: string, load: () => Uint8Array, decoded = new DecodedPhotos()): JobPhoto & { loads: number } {
  const photo = {
    cacheKey: key,
    withFile: false,
    loads: 0,
    pixels: () =>
      decoded.pixels(key, () => {
        photo.loads += 1;
        return load();
      }),
  };
  return photo;
}

let sharedPool: WorkerPool | undefined;
/** One real engine worker per test file, shared by its servers (the model loads once). */
export async function sharedEngine(): Promise<WorkerPool> {
  if (!sharedPool) {
    sharedPool = new WorkerPool({ workers: 1, maxQueue: 32, threads: 2, jobTimeoutMs: 120_000, embeddingCacheSize: 8 });
    await sharedPool.ready();
  }
  return sharedPool;
}
export async function closeSharedEngine(): Promise<void> {
  await sharedPool?.close();
  sharedPool = undefined;
}

export interface TestServer extends RunningServer {
  clock: TestClock;
  dbKind: 'sqlite' | 'postgres';
  /** Fetch relative to the server. */
  fetch(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /** Asserts balance = sum of ledger entries (and never negative) for every account. */
  checkLedger(): Promise<void>;
  cleanup(): Promise<void>;
  /** Where its data lives: pass it to another test server to run a second process on it. */
  database: OpenDatabaseOptions;
}

export interface TestServerOptions {
  db: 'sqlite' | 'postgres';
  backend: InferenceBackend;
  faults?: FaultRates;
  rateLimitPerSecond?: number;
  config?: Partial<ServerConfig>;
  /** Another test server's database (`TestServer.database`): a second process on it; its cleanup leaves the database to the first. */
  database?: OpenDatabaseOptions;
}

export async function startTestServer(options: TestServerOptions): Promise<TestServer> {
  const clock = new TestClock();
  let database: OpenDatabaseOptions;
  let dir: string | undefined;
  if (options.database) {
    database = options.database;
  } else if (options.db === 'postgres') {
    if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set');
    database = { databaseUrl: TEST_DATABASE_URL, pgSchema: `t_${randomBytes(6).toString('hex')}` };
  } else {
    dir = mkdtempSync(join(tmpdir(), 'mw-server-test-'));
    database = { sqliteFile: join(dir, 'test.sqlite') };
  }
  const config: ServerConfig = {
    ...configFromEnv({}),
    port: 0,
    host: '127.0.0.1',
    staticDir: join(tmpdir(), 'mw-no-static'),
    faults: options.faults ?? {},
    rateLimitPerSecond: options.rateLimitPerSecond ?? 1000,
    // The suites sign up many accounts from one address; the throttle's own tests set it back.
    authThrottles: { ...configFromEnv({}).authThrottles, signupFreePerAddress: 1_000_000 },
    // Suites that make many empty answers on purpose (FAULT_INJECTION empty=1); api.refundBudget.test.ts sets its own.
    refundBudget: { limit: 1_000_000, windowMs: 600_000 },
    ...options.config,
  };
  const server = await startServer({
    config,
    database,
    backend: options.backend,
    clock,
    logger: false,
    backgroundLoops: false,
  });
  const fetchFrom = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const { json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (json !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
    return fetch(`${server.url}${path}`, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
  };
  return {
    ...server,
    clock,
    dbKind: options.db,
    fetch: fetchFrom,
    async checkLedger() {
      expect(await ledgerMismatches(server.services.db.kysely)).toEqual([]);
    },
    database,
    async cleanup() {
      const pgSchema = options.database ? undefined : database.pgSchema;
      await server.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
      if (pgSchema && TEST_DATABASE_URL) {
        const pg = (await import('pg')).default;
        const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${pgSchema}" CASCADE`);
        await client.end();
      }
    },
  };
}

/** A signed-up user with a session (cookies + CSRF token) and, on request, an API key. */
export interface TestUser {
  email: string;
  password: string;
  cookie: string;
  csrf: string;
  /** Headers for a cookie-authenticated state-changing request. */
  sessionHeaders: Record<string, string>;
  key: string;
  keyId: string;
  bearer: Record<string, string>;
}

export function parseSetCookies(response: Response): Record<string, { value: string; attributes: string }> {
  const out: Record<string, { value: string; attributes: string }> = {};
  for (const line of response.headers.getSetCookie()) {
    const [pair, ...attributes] = line.split(';');
    const index = pair.indexOf('=');
    out[pair.slice(0, index).trim()] = { value: pair.slice(index + 1).trim(), attributes: attributes.join(';').trim() };
  }
  return out;
}

export async function signupUser(server: TestServer, withKey = true): Promise<TestUser> {
  const email = `u-${randomBytes(5).toString('hex')}@example.test`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const response = await server.fetch('/api/v1/auth/signup', { method: 'POST', json: { email, password } });
  expect(response.status).toBe(201);
  const cookies = parseSetCookies(response);
  const cookie = `mw_session=${cookies.mw_session.value}; mw_csrf=${cookies.mw_csrf.value}`;
  const sessionHeaders = { cookie, 'x-csrf-token': cookies.mw_csrf.value };
  const user: TestUser = { email, password, cookie, csrf: cookies.mw_csrf.value, sessionHeaders, key: '', keyId: '', bearer: {} };
  if (withKey) {
    const created = await server.fetch('/api/v1/api-keys', { method: 'POST', headers: sessionHeaders });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { id: string; key: string };
    user.key = body.key;
    user.keyId = body.id;
    user.bearer = { authorization: `Bearer ${body.key}` };
  }
  return user;
}

export async function creditsOf(server: TestServer, user: TestUser): Promise<number> {
  const response = await server.fetch('/api/v1/account', { headers: { cookie: user.cookie } });
  return ((await response.json()) as { credits: number }).credits;
}

/** The body of a response that must have `status` (the start of the body is shown when it has not). */
export async function expectJson<T>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  expect(response.status, text.slice(0, 300)).toBe(status);
  return JSON.parse(text) as T;
}

/** Requests to `server` as `user` (with their API key), JSON bodies; `extra` adds headers (Idempotency-Key, If-Match…). */
export function userClient(server: TestServer, user: TestUser) {
  const headers = user.bearer;
  return {
    get: (path: string, extra: Record<string, string> = {}) => server.fetch(path, { headers: { ...headers, ...extra } }),
    post: (path: string, body: unknown, extra: Record<string, string> = {}) => server.fetch(path, { method: 'POST', headers: { ...headers, ...extra }, json: body }),
    put: (path: string, body: unknown, extra: Record<string, string> = {}) => server.fetch(path, { method: 'PUT', headers: { ...headers, ...extra }, json: body }),
    del: (path: string) => server.fetch(path, { method: 'DELETE', headers }),
  };
}

export async function expectProblem(response: Response, status: number, slug: string): Promise<Record<string, unknown>> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await response.json()) as Record<string, unknown>;
  expect(body.type).toBe(`/problems/${slug}`);
  expect(body.status).toBe(status);
  expect(body.requestId).toBe(response.headers.get('x-service-request-id'));
  expect(String(body.requestId)).toMatch(/^req_/);
  return body;
}

/**
 * A valid PNG of exactly `size` bytes: the original with a private ancillary chunk ("tEXt"
 * comment) inserted before IEND. Decoders skip it; the pixels stay those of the original.
 */
export function padPng(png: Buffer, size: number): Buffer {
  const { crc32 } = require('node:zlib') as { crc32(data: Buffer): number };
  const iend = png.length - 12;
  const dataLength = size - png.length - 12;
  if (dataLength < 0) throw new Error('PNG already larger than requested');
  const type = Buffer.from('tEXt');
  const data = Buffer.alloc(dataLength, 0x61);
  data.write('Comment\0', 0, 'latin1');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(dataLength);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([type, data])) >>> 0);
  return Buffer.concat([png.subarray(0, iend), length, type, data, crc, png.subarray(iend)]);
}

/** JPEG markers: baseline start of frame, APP1 (EXIF), start of scan. */
const SOF0 = 0xc0;
const APP1 = 0xe1;
const SOS = 0xda;

/**
 * A real JPEG stored 400 wide × 600 high whose EXIF says "rotate 90°" (orientation 6), with the
 * APP1 (EXIF) segment moved to just after the frame header, where libjpeg still reads it: the
 * decoder shows the photo 600 × 400.
 */
export async function jpegWithExifAfterFrameHeader(): Promise<Buffer> {
  const stored = await sharp({ create: { width: 400, height: 600, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .toBuffer();
  const segments: { marker: number; bytes: Buffer }[] = [];
  let i = 2;
  while (i < stored.length) {
    const marker = stored[i + 1];
    const end = marker === SOS ? stored.length : i + 2 + stored.readUInt16BE(i + 2);
    segments.push({ marker, bytes: stored.subarray(i, end) });
    if (marker === SOS) break;
    i = end;
  }
  const exif = segments.find((s) => s.marker === APP1);
  if (!exif || !segments.some((s) => s.marker === SOF0)) throw new Error('sharp wrote no EXIF or no baseline frame header');
  const reordered = segments.filter((s) => s !== exif).flatMap((s) => (s.marker === SOF0 ? [s.bytes, exif.bytes] : [s.bytes]));
  return Buffer.concat([stored.subarray(0, 2), ...reordered]);
}
