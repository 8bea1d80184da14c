/**
 * `npm run bench:adversarial`: issue 39's attacks, each run against a real server process
 * (bench/serverProcess.ts: temporary SQLite, loopback, behind a trusted proxy so each request can
 * name its client address), with `GET /api/v1/health` probed every 50 ms meanwhile.
 * For each attack: the answers >= 500 it drew, the probes' p99, and whether the service held
 * (the rule each attack is judged by is written beside it). Prints a table and writes
 * bench/results/adversarial.json; exits 1 when an attack was not held.
 *
 *   npm run bench:adversarial -- [--only gif,revision]
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { connect, type Socket } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { readZip } from '../src/annotations/formats/zip';
import { API_ROUTES } from '../src/contract/routes';
import { EXPORT_FORMATS, type AnnotationObject } from '../src/contract/projects';
import { gifFrameBomb } from '../test/support/badImages';
import { LoopBlockFile, longestBlock } from './loopBlocks';
import { ringObjects } from './ringObjects';
import { startServerProcess } from './serverProcess';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const log = (line: string) => void process.stderr.write(`[bench:adversarial] ${line}\n`);
const PROBE_EVERY_MS = 50;
/** Timings that would tell one account what another holds: both sides tried this often, and "measurable" means every try of one side beat every try of the other. */
const TIMING_TRIES = 8;

const { values: args } = parseArgs({ options: { only: { type: 'string' } } });

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN);

interface Outcome {
  held: boolean;
  /** What was seen, in words. */
  detail: string;
}

interface AttackRow extends Outcome {
  attack: string;
  requests: number;
  answersAtLeast500: number;
  healthP99Ms: number;
  healthMaxMs: number;
  /** The server's longest event-loop block meanwhile (LOOP_BLOCK_LOG): wall and main-thread CPU ms, and what was in flight then. */
  longestBlock: { wallMs: number; cpuMs: number; inFlight: string[] };
}

/** The answers an attack drew, counted as they come. */
class Answers {
  requests = 0;
  atLeast500 = 0;
  constructor(private readonly url: string) {}

  async send(path: string, init: RequestInit & { from?: string } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set('x-forwarded-for', init.from ?? '198.51.100.1');
    const response = await fetch(`${this.url}${path}`, { ...init, headers, signal: init.signal ?? AbortSignal.timeout(300_000) });
    this.requests += 1;
    if (response.status >= 500) this.atLeast500 += 1;
    return response;
  }
}

/** Probes /health every 50 ms while `work` runs; the probes' p99 and max. */
async function withHealthProbes<T>(url: string, work: () => Promise<T>): Promise<{ value: T; p99Ms: number; maxMs: number }> {
  const latencies: Promise<number>[] = [];
  const probe = () => {
    const started = performance.now();
    latencies.push(
      fetch(`${url}/api/v1/health`, { signal: AbortSignal.timeout(30_000) }).then(
        async (r) => (await r.arrayBuffer(), r.ok ? performance.now() - started : Infinity),
        () => Infinity,
      ),
    );
  };
  probe();
  const timer = setInterval(probe, PROBE_EVERY_MS);
  try {
    const value = await work();
    const sorted = (await Promise.all(latencies)).sort((a, b) => a - b);
    return { value, p99Ms: percentile(sorted, 99), maxMs: sorted[sorted.length - 1] };
  } finally {
    clearInterval(timer);
  }
}

interface Account {
  email: string;
  key: string;
  password: string;
  send: (path: string, init?: RequestInit & { from?: string }) => Promise<Response>;
  json: <T>(path: string, method: string, body?: unknown, headers?: Record<string, string>) => Promise<{ status: number; body: T }>;
}

let accounts = 0;
async function newAccount(answers: Answers): Promise<Account> {
  accounts += 1;
  const email = `adversary-${accounts}-${Date.now()}@example.test`;
  const password = `a long password ${accounts}`;
  const from = `198.51.100.${accounts}`;
  const signup = await answers.send('/api/v1/auth/signup', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }), from });
  const cookies = signup.headers.getSetCookie().map((c) => c.split(';')[0]);
  const csrf = cookies.find((c) => c.startsWith('mw_csrf='))!.slice('mw_csrf='.length);
  const keyAnswer = await answers.send('/api/v1/api-keys', { method: 'POST', headers: { cookie: cookies.join('; '), 'x-csrf-token': csrf }, from });
  const { key } = (await keyAnswer.json()) as { key: string };
  const send = (path: string, init: RequestInit & { from?: string } = {}) =>
    answers.send(path, { ...init, from, headers: { authorization: `Bearer ${key}`, ...(init.body ? { 'content-type': 'application/json' } : {}), ...(init.headers as Record<string, string>) } });
  const json = async <T>(path: string, method: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await send(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  };
  return { email, key, password, send, json };
}

const classes = (names: string[]) => names.map((name, i) => ({ id: i + 1, name, color: '#3366ff' }));

async function newProject(account: Account, classNames = ['a', 'b', 'c']): Promise<string> {
  const { status, body } = await account.json<{ id: string }>('/api/v1/projects', 'POST', { name: 'target', classes: classes(classNames) });
  if (status !== 201 && status !== 200) throw new Error(`project creation answered ${status}`);
  return body.id;
}

const upload = (account: Account, projectId: string, name: string, bytes: Buffer) =>
  account.json<{ id: string }>(`/api/v1/projects/${projectId}/images`, 'POST', { name, image: bytes.toString('base64') });

/** A new account with a project holding one photo: the set-up most attacks start from. */
async function ownerWithImage(answers: Answers, name: string, bytes: Buffer, classNames?: string[]) {
  const owner = await newAccount(answers);
  const project = await newProject(owner, classNames);
  const image = await upload(owner, project, name, bytes);
  return { owner, project, image, annotationsPath: `/api/v1/projects/${project}/images/${image.body.id}/annotations` };
}

/** Every try of `fast` quicker than every try of `slow`: a signal an attacker reads at 8 of 8. */
const separates = (fast: number[], slow: number[]) => Math.max(...fast) < Math.min(...slow);
const ms = (values: number[]) => `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)} ms`;

async function timed(request: () => Promise<Response>): Promise<number> {
  const started = performance.now();
  const response = await request();
  await response.arrayBuffer();
  return performance.now() - started;
}

/** What an attack may know of the server it attacks. */
interface Target {
  url: string;
  pid: number;
}

type Attack = (answers: Answers, target: Target) => Promise<Outcome>;

/** The soft limit on open files of a process (/proc, Linux). */
function openFileLimit(pid: number): number {
  const line = readFileSync(`/proc/${pid}/limits`, 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
  return Number(line?.split(/\s{2,}/)[1]);
}

const openFiles = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

const SLOW_SOCKETS = 8000;
/** Past the server's 30 s header deadline (HEADERS_TIMEOUT_MS) and Node's check of it (1 s). */
const SLOW_SOCKETS_HOLD_MS = 36_000;

/**
 * `count` sockets to the server, opened 250 at a time: every other one idle (connected, nothing
 * sent), the rest slow-loris (a request line, then one header byte every 2 s). Each one's end is
 * noted: when the server closed it, and whether it answered first.
 */
async function slowSockets(url: string, count: number): Promise<{ sockets: Socket[]; opened: () => number; closedByServer: () => number; answered: () => number; stop: () => void }> {
  const { hostname, port } = new URL(url);
  const sockets: Socket[] = [];
  let opened = 0;
  let closedByServer = 0;
  let answered = 0;
  const tricklers: NodeJS.Timeout[] = [];
  for (let first = 0; first < count; first += 250) {
    const batch = Array.from({ length: Math.min(250, count - first) }, (_, j) => first + j);
    await Promise.all(
      batch.map(
        (i) =>
          new Promise<void>((ready) => {
            const socket = connect({ host: hostname, port: Number(port) });
            let ended = false;
            socket.once('connect', () => {
              opened += 1;
              if (i % 2 === 1) {
                socket.write(`GET /api/v1/health HTTP/1.1\r\nHost: ${hostname}\r\nX-Slow: `);
                // Spread over the 2 s so the trickle is steady, not 4,000 writes at once.
                const start = setTimeout(() => tricklers.push(setInterval(() => socket.writable && socket.write('a'), 2000)), (i * 7) % 2000);
                tricklers.push(start);
              }
              ready();
            });
            socket.on('data', () => (answered += 1));
            socket.on('error', () => ready());
            socket.once('close', () => {
              if (!ended) closedByServer += 1;
              ready();
            });
            socket.once('stop', () => (ended = true));
            sockets.push(socket);
          }),
      ),
    );
  }
  return {
    sockets,
    opened: () => opened,
    closedByServer: () => closedByServer,
    answered: () => answered,
    stop: () => {
      for (const timer of tricklers) clearInterval(timer);
      for (const socket of sockets) {
        socket.emit('stop');
        socket.destroy();
      }
    },
  };
}

async function photo(seed: number): Promise<Buffer> {
  const base = readFileSync(join(repoRoot, 'public/samples/chelsea.png'));
  return sharp(base).resize(160 + seed).png().toBuffer();
}

/** Two API processes on one PostgreSQL schema of their own (dropped afterwards), the first started alone so that it migrates. */
async function twoProcessesOnPostgres(databaseUrl: string, env: Record<string, string>): Promise<{ urls: string[]; stop: () => Promise<void> }> {
  const schema = `adversarial_${Date.now()}`;
  const shared = { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema, INFERENCE_WORKERS: '1', TRUST_PROXY: 'true', SIGNUP_FREE_PER_ADDRESS: '1000', RATE_LIMIT_PER_SECOND: '1000000', ...env };
  const first = await startServerProcess('adversarial-pg-a', shared);
  const second = await startServerProcess('adversarial-pg-b', shared).catch(async (error: unknown) => {
    await first.stop();
    throw error;
  });
  return {
    urls: [first.url, second.url],
    stop: async () => {
      await Promise.all([first.stop(), second.stop()]);
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

/** The same account's key, sent to another process. */
function viaProcess(answers: Answers, url: string, account: Account) {
  const other = new Answers(url);
  return {
    send: async (path: string, init: RequestInit = {}) => {
      const response = await other.send(path, { ...init, headers: { authorization: `Bearer ${account.key}`, ...(init.body ? { 'content-type': 'application/json' } : {}), ...(init.headers as Record<string, string>) } });
      answers.requests += 1;
      // 507 storage-quota-exceeded is the quota's documented answer (src/server/README.md), what this attack seeks.
      if (response.status >= 500 && response.status !== 507) answers.atLeast500 += 1;
      return response;
    },
  };
}

/** Two processes on one PostgreSQL: the owner's storage quota (bytes): the first photo (~50 kB) and 3 of the ~370 kB ones. */
const RACE_QUOTA_BYTES = 1_200_000;

/** `healthJudged: false`: the attack is on other processes than the one whose /health is probed. */
const ATTACKS: Record<string, { name: string; run: Attack; healthJudged?: false }> = {
  twoProcesses: {
    name: 'two server processes on one PostgreSQL (TEST_DATABASE_URL): a revision race, the storage quota and credits → one winner, quota exact, 0 credits lost or doubled',
    run: async (answers) => {
      const databaseUrl = process.env.TEST_DATABASE_URL;
      if (!databaseUrl) return { held: true, detail: 'skipped: TEST_DATABASE_URL is not set' };
      const pair = await twoProcessesOnPostgres(databaseUrl, { PROJECT_QUOTA_BYTES: String(RACE_QUOTA_BYTES), INFERENCE_ACCOUNT_QUEUE: '100', REFUND_BUDGET: '1000' });
      try {
        const home = new Answers(pair.urls[0]);
        const owner = await newAccount(home);
        const sides = pair.urls.map((url) => viaProcess(answers, url, owner));
        const project = await newProject(owner);
        const first = await upload(owner, project, 'race.png', await photo(5));
        const annotations = `/api/v1/projects/${project}/images/${first.body.id}/annotations`;
        // 1. Twenty writes from revision 0, half through each process, all at once: one may win.
        const writes = await Promise.all(
          Array.from({ length: 20 }, (_, i) => sides[i % 2].send(annotations, { method: 'PUT', body: JSON.stringify({ revision: 0, objects: ringObjects(1 + (i % 3), 8, 150, 100) }) }).then(async (r) => (await r.arrayBuffer(), r.status))),
        );
        const after = await owner.json<{ revision: number }>(annotations, 'GET');
        const winners = writes.filter((s) => s === 200).length;
        const raceHeld = winners === 1 && writes.every((s) => s === 200 || s === 409) && after.body.revision === 1;
        // 2. Sixteen new photos at once against a quota that holds a few: the sum stored never passes it.
        const photos = await Promise.all(Array.from({ length: 16 }, (_, i) => photo(300 + i)));
        const uploads = await Promise.all(
          photos.map((bytes, i) => sides[i % 2].send(`/api/v1/projects/${project}/images`, { method: 'POST', body: JSON.stringify({ name: `q${i}.png`, image: bytes.toString('base64') }) }).then(async (r) => (await r.arrayBuffer(), r.status))),
        );
        const listed = await owner.json<{ images: Array<{ bytes: number }> }>(`/api/v1/projects/${project}/images`, 'GET');
        const storedBytes = listed.body.images.reduce((sum, image) => sum + image.bytes, 0);
        const quotaHeld = storedBytes <= RACE_QUOTA_BYTES && uploads.every((s) => s === 201 || s === 507) && uploads.includes(507) && listed.body.images.length === 1 + uploads.filter((s) => s === 201).length;
        // 3. Twelve metered clicks (PVS) at once on the 5 sign-up credits, half through each process.
        const before = await owner.json<{ credits: number }>('/api/v1/account', 'GET');
        const image = (await photo(6)).toString('base64');
        const clicks = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            sides[i % 2]
              .send('/api/v1/pvs', { method: 'POST', body: JSON.stringify({ image, imageId: 'race', points: [{ x: 60 + i, y: 50, positive: true }], multimaskOutput: false }) })
              .then(async (r) => (await r.arrayBuffer(), { status: r.status, refunded: r.headers.get('x-service-refunded') === 'true' })),
          ),
        );
        const charged = clicks.filter((c) => c.status === 200 && !c.refunded).length;
        const end = await owner.json<{ credits: number }>('/api/v1/account', 'GET');
        const creditsHeld = end.body.credits === before.body.credits - charged && end.body.credits >= 0 && clicks.every((c) => c.status < 500);
        const statuses = (list: number[]) => [...new Set(list)].map((s) => `${list.filter((x) => x === s).length}× ${s}`).join(', ');
        return {
          held: raceHeld && quotaHeld && creditsHeld,
          detail:
            `revision race: ${statuses(writes)}, revision after ${after.body.revision}${raceHeld ? '' : ' (NOT one winner)'}; ` +
            `quota ${RACE_QUOTA_BYTES} B: uploads ${statuses(uploads)}, ${listed.body.images.length} images, ${storedBytes} B stored${quotaHeld ? '' : ' (NOT within the quota)'}; ` +
            `credits ${before.body.credits} → ${end.body.credits} with ${charged} charged clicks (${statuses(clicks.map((c) => c.status))}; ${clicks.filter((c) => c.refunded).length} refunded)${creditsHeld ? '' : ' (credits lost or doubled)'}`,
        };
      } finally {
        await pair.stop();
      }
    },
    healthJudged: false,
  },
  sockets: {
    name: `${SLOW_SOCKETS.toLocaleString('en-US')} idle and slow-loris sockets held ${SLOW_SOCKETS_HOLD_MS / 1000} s → /health and a normal user still answered, every socket closed by its deadline`,
    run: async (answers, target) => {
      const user = await ownerWithImage(answers, 'normal.png', await photo(4));
      const limit = openFileLimit(target.pid);
      const filesBefore = openFiles(target.pid);
      const attack = await slowSockets(target.url, SLOW_SOCKETS);
      const filesDuring = openFiles(target.pid);
      // A normal user's requests meanwhile, one every second: a read and a small write.
      const userAnswers: number[] = [];
      const userLatencies: number[] = [];
      let revision = 0;
      const until = performance.now() + SLOW_SOCKETS_HOLD_MS;
      while (performance.now() < until) {
        const started = performance.now();
        const read = await user.owner.send(user.annotationsPath).catch(() => undefined);
        await read?.arrayBuffer();
        const write = await user.owner.json<{ revision: number }>(user.annotationsPath, 'PUT', { revision, objects: ringObjects(1, 8, 150, 100) }).catch(() => undefined);
        if (write?.status === 200) revision = write.body.revision;
        userAnswers.push(read?.status ?? -1, write?.status ?? -1);
        userLatencies.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 1000));
      }
      const opened = attack.opened();
      const closed = attack.closedByServer();
      const answered = attack.answered();
      attack.stop();
      const userOk = userAnswers.every((status) => status === 200);
      const held = opened === SLOW_SOCKETS && userOk && closed === opened;
      return {
        held,
        detail:
          `server's open-file limit ${limit}; ${opened} of ${SLOW_SOCKETS} sockets opened (server's open files ${filesBefore} → ${filesDuring}); ` +
          `${closed} closed by the server within ${SLOW_SOCKETS_HOLD_MS / 1000} s (${answered} with an answer first); ` +
          `the normal user's ${userAnswers.length} requests: ${userOk ? 'all 200' : `answers ${[...new Set(userAnswers)].join(', ')}`}, read + write ${ms(userLatencies)}`,
      };
    },
  },
  gif: {
    name: 'GIF frame bomb (100² screen, 16300² frame) → 400',
    run: async (answers) => {
      const owner = await newAccount(answers);
      const project = await newProject(owner);
      const statuses = [(await upload(owner, project, 'bomb.gif', gifFrameBomb(100, 16_300))).status, (await upload(owner, project, 'huge.gif', gifFrameBomb(100, 60_000))).status];
      return { held: statuses.every((s) => s === 400), detail: `answers ${statuses.join(', ')}` };
    },
  },
  truncated: {
    name: 'truncated PNG and JPEG → 400, never stored',
    run: async (answers) => {
      const owner = await newAccount(answers);
      const project = await newProject(owner);
      const png = await photo(0);
      const jpeg = await sharp(png).jpeg().toBuffer();
      const statuses = [(await upload(owner, project, 'cut.png', png.subarray(0, Math.floor(png.length * 0.6)))).status, (await upload(owner, project, 'cut.jpg', jpeg.subarray(0, Math.floor(jpeg.length * 0.6)))).status];
      const listed = await owner.json<{ images: unknown[] }>(`/api/v1/projects/${project}/images`, 'GET');
      return { held: statuses.every((s) => s === 400) && listed.body.images.length === 0, detail: `answers ${statuses.join(', ')}; ${listed.body.images.length} stored` };
    },
  },
  overlap: {
    name: '256 overlapping objects on one image, every export format → no answer >= 500',
    run: async (answers) => {
      const { owner, project, annotationsPath } = await ownerWithImage(answers, 'crowd.png', await photo(40));
      const write = await owner.json(annotationsPath, 'PUT', { revision: 0, objects: ringObjects(256, 12, 200, 150) });
      const statuses: string[] = [];
      for (const format of EXPORT_FORMATS) statuses.push(`${format} ${(await owner.send(`/api/v1/projects/${project}/export?format=${format}`)).status}`);
      return { held: write.status === 200 && statuses.every((s) => s.endsWith(' 200')), detail: `write ${write.status}; ${statuses.join(', ')}` };
    },
  },
  revision: {
    name: 'revision >= 2^31 in the body and in If-Match → 4xx',
    run: async (answers) => {
      const { owner, annotationsPath: path } = await ownerWithImage(answers, 'one.png', await photo(1));
      const statuses: number[] = [];
      for (const revision of [2147483647, 2147483648, 1e300, -1, 2 ** 53]) statuses.push((await owner.json(path, 'PUT', { revision, objects: [] })).status);
      for (const tag of ['"2147483647"', '"99999999999999999999"', '"-1"']) statuses.push((await owner.json(path, 'PUT', { objects: [] }, { 'if-match': tag })).status);
      return { held: statuses.every((s) => s >= 400 && s < 500), detail: `answers ${statuses.join(', ')}` };
    },
  },
  names: {
    name: 'control characters and ../ in class and image names → refused (4xx) or exported well-formed and non-traversing',
    run: async (answers) => {
      const owner = await newAccount(answers);
      const seen: string[] = [];
      // The worst names first; a refusal (4xx) is an answer too, then milder ones that may be stored.
      let project: string | undefined;
      for (const names of [['nul\u0000class', 'rtl\u202Eclass', '../../etc'], ['rtl\u202Eclass', '../../etc', '<x>&"y"'], ['../../etc', '<x>&"y"', 'plain']]) {
        const created = await owner.json<{ id: string }>('/api/v1/projects', 'POST', { name: 'names', classes: classes(names) });
        seen.push(`classes ${JSON.stringify(names)} ${created.status}`);
        if (created.status < 300) {
          project = created.body.id;
          break;
        }
      }
      if (!project) return { held: seen.every((s) => / 4\d\d$/.test(s)), detail: seen.join('; ') };
      let imageId: string | undefined;
      for (const name of ['../../evil\u0000name\u202E.png', '../../evil\u202E.png', '..\\..\\evil.png']) {
        const image = await upload(owner, project, name, await photo(2));
        seen.push(`image ${JSON.stringify(name)} ${image.status}`);
        if (image.status < 300) {
          imageId = image.body.id;
          break;
        }
      }
      if (imageId) {
        const objects: AnnotationObject[] = ringObjects(3, 8, 150, 100).map((o, i) => ({ ...o, classId: i + 1 }));
        await owner.json(`/api/v1/projects/${project}/images/${imageId}/annotations`, 'PUT', { revision: 0, objects });
      }
      const failures: string[] = [];
      for (const format of EXPORT_FORMATS) {
        const response = await owner.send(`/api/v1/projects/${project}/export?format=${format}`);
        const bytes = Buffer.from(await response.arrayBuffer());
        const zipped = /zip|png/.test(response.headers.get('content-type') ?? '');
        const text = bytes.toString('latin1');
        if (response.status >= 500) failures.push(`${format} ${response.status}`);
        if (!zipped && text.includes('\u0000')) failures.push(`${format}: raw NUL`);
        if (/"(file_name|imagePath)"\s*:\s*"[^"]*\.\.[\\/]/.test(text)) failures.push(`${format}: ../ in a file name`);
        if (response.headers.get('content-type')?.includes('zip')) {
          const traversing = (await readZip(bytes)).map((e) => e.name).filter((name) => name.split(/[\\/]/).includes('..') || name.startsWith('/') || name.includes('\u0000'));
          if (traversing.length) failures.push(`${format}: zip entries ${JSON.stringify(traversing)}`);
        }
      }
      const refusedBadly = seen.filter((s) => !/ (2|4)\d\d$/.test(s));
      return { held: failures.length === 0 && refusedBadly.length === 0, detail: `${seen.join('; ')}; ${failures.length ? failures.join('; ') : 'every format well-formed'}` };
    },
  },
  crossAccount: {
    name: 'another account on every project route → 4xx, nothing read or written',
    run: async (answers) => {
      const { owner, project, image, annotationsPath } = await ownerWithImage(answers, 'private.png', await photo(3));
      const intruder = await newAccount(answers);
      const leaks: string[] = [];
      let tried = 0;
      for (const [name, route] of Object.entries(API_ROUTES)) {
        if (!route.path.includes('{projectId}')) continue;
        const path = route.path
          .replace('{projectId}', project)
          .replace('{imageId}', image.body.id)
          .replace('{jobId}', 'job-1')
          .replace('{email}', encodeURIComponent(owner.email));
        const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : JSON.stringify({ revision: 0, objects: [], classes: classes(['x']), email: 'x@example.test', role: 'annotator', image: '' });
        const response = await intruder.send(path, { method: route.method, body, signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
        tried += 1;
        if (!response) continue;
        if (response.status < 400 || response.status >= 500) leaks.push(`${name} ${response.status}`);
        await response.body?.cancel();
      }
      const still = await owner.json<{ objects: unknown[]; revision: number }>(annotationsPath, 'GET');
      const untouched = still.status === 200 && still.body.revision === 0;
      return { held: leaks.length === 0 && untouched, detail: `${tried} routes; ${leaks.length ? `answered ${leaks.join(', ')}` : 'all refused'}; owner's image ${untouched ? 'untouched' : 'changed'}` };
    },
  },
  dedupSignal: {
    name: 'upload and thumbnail of bytes another account stored vs new bytes: no timing signal at 8 of 8',
    run: async (answers) => {
      const victim = await newAccount(answers);
      const prober = await newAccount(answers);
      const victimProject = await newProject(victim);
      const proberProject = await newProject(prober);
      const known: Buffer[] = [];
      for (let i = 0; i < TIMING_TRIES; i++) {
        known.push(await photo(100 + i));
        await upload(victim, victimProject, `v${i}.png`, known[i]);
      }
      const fresh = await Promise.all(Array.from({ length: TIMING_TRIES }, (_, i) => photo(200 + i)));
      const uploads = { known: [] as number[], fresh: [] as number[] };
      const thumbnails = { known: [] as number[], fresh: [] as number[] };
      for (let i = 0; i < TIMING_TRIES; i++) {
        for (const side of ['known', 'fresh'] as const) {
          const bytes = (side === 'known' ? known : fresh)[i];
          let id = '';
          uploads[side].push(await timed(async () => {
            const response = await prober.send(`/api/v1/projects/${proberProject}/images`, { method: 'POST', body: JSON.stringify({ name: `${side}${i}.png`, image: bytes.toString('base64') }) });
            id = ((await response.clone().json()) as { id: string }).id;
            return response;
          }));
          thumbnails[side].push(await timed(() => prober.send(`/api/v1/projects/${proberProject}/images/${id}/thumbnail`)));
        }
      }
      const signals = [separates(uploads.known, uploads.fresh) && 'upload', separates(thumbnails.known, thumbnails.fresh) && 'thumbnail'].filter(Boolean);
      return {
        held: signals.length === 0,
        detail: `upload known ${ms(uploads.known)} vs new ${ms(uploads.fresh)}; thumbnail known ${ms(thumbnails.known)} vs new ${ms(thumbnails.fresh)}${signals.length ? `; signal: ${signals.join(', ')}` : ''}`,
      };
    },
  },
  notFoundTiming: {
    name: "another account's project vs no project: same 404, no timing signal at 8 of 8",
    run: async (answers) => {
      const owner = await newAccount(answers);
      const prober = await newAccount(answers);
      const projects: string[] = [];
      for (let i = 0; i < TIMING_TRIES; i++) projects.push(await newProject(owner));
      const absent = projects.map((id) => id.replace(/.{6}$/, (tail) => [...tail].reverse().join('').replace(/./, 'z')));
      const existing: number[] = [];
      const missing: number[] = [];
      const statuses = new Set<number>();
      for (let i = 0; i < TIMING_TRIES; i++) {
        existing.push(await timed(async () => { const r = await prober.send(`/api/v1/projects/${projects[i]}`); statuses.add(r.status); return r; }));
        missing.push(await timed(async () => { const r = await prober.send(`/api/v1/projects/${absent[i]}`); statuses.add(r.status); return r; }));
      }
      const signal = separates(missing, existing) || separates(existing, missing);
      return { held: !signal && [...statuses].every((s) => s === 404), detail: `statuses ${[...statuses].join(', ')}; another's ${ms(existing)} vs none ${ms(missing)}${signal ? '; signal' : ''}` };
    },
  },
  lockout: {
    name: 'owner logs in while 100 wrong passwords come from 20 addresses, then one every 0.5 s from new ones',
    run: async (answers) => {
      const owner = await newAccount(answers);
      const login = (password: string, from: string) => answers.send('/api/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: owner.email, password }), from });
      for (let i = 0; i < 100; i++) await (await login('wrong guess', `203.0.113.${i % 20}`)).arrayBuffer();
      const tries: number[] = [];
      for (let i = 0; i < 10; i++) {
        await (await login('wrong guess', `192.0.2.${i + 1}`)).arrayBuffer();
        await new Promise((r) => setTimeout(r, 500));
        if (i % 3 === 2) tries.push((await login(owner.password, `100.64.${i}.9`)).status);
      }
      return { held: tries.every((s) => s === 200), detail: `owner's right password from fresh addresses: ${tries.join(', ')}` };
    },
  },
  largeWrite: {
    name: '2,000 objects × 125 vertices written, then exported as COCO: /health p99 <= 250 ms',
    run: async (answers) => {
      const sample = readFileSync(join(repoRoot, 'public/samples/chelsea.png'));
      const { width, height } = await sharp(sample).metadata();
      const { owner, project, annotationsPath } = await ownerWithImage(answers, 'big.png', sample);
      const write = await owner.json(annotationsPath, 'PUT', { revision: 0, objects: ringObjects(2000, 125, width!, height!) });
      const exported = await owner.send(`/api/v1/projects/${project}/export?format=coco`);
      await exported.arrayBuffer();
      return { held: write.status === 200 && exported.status === 200, detail: `write ${write.status}, export ${exported.status}` };
    },
  },
};

/** The /health bar during any single attack (issue 39). */
const HEALTH_P99_BAR_MS = 250;

async function main(): Promise<void> {
  const only = args.only?.split(',');
  const chosen = Object.entries(ATTACKS).filter(([id]) => !only || only.includes(id));
  log(`starting a server process (load average ${loadavg()[0].toFixed(2)} on ${cpus().length} cores)`);
  const blockLog = new LoopBlockFile();
  const server = await startServerProcess('adversarial', { INFERENCE_WORKERS: '1', TRUST_PROXY: 'true', SIGNUP_FREE_PER_ADDRESS: '1000', RATE_LIMIT_PER_SECOND: '1000000', LOOP_BLOCK_LOG: blockLog.path });
  const rows: AttackRow[] = [];
  try {
    for (const [id, attack] of chosen) {
      const answers = new Answers(server.url);
      const { value: probed, blocks } = await blockLog.during(() =>
        withHealthProbes(server.url, () => attack.run(answers, server).catch((error: unknown): Outcome => ({ held: false, detail: `the attack script failed: ${String(error)}` }))),
      );
      const { value: outcome, p99Ms, maxMs } = probed;
      const worst = blocks.reduce((a, b) => (b.cpuMs > a.cpuMs ? b : a), { cpuMs: 0, inFlight: [] as string[] });
      const longest = { ...longestBlock(blocks), inFlight: worst.inFlight.filter((kind) => !kind.endsWith('/health')) };
      const held = outcome.held && answers.atLeast500 === 0 && (attack.healthJudged === false || p99Ms <= HEALTH_P99_BAR_MS);
      rows.push({ attack: `${id}: ${attack.name}`, requests: answers.requests, answersAtLeast500: answers.atLeast500, healthP99Ms: p99Ms, healthMaxMs: maxMs, longestBlock: longest, held, detail: outcome.detail });
      log(`${id}: ${held ? 'held' : 'NOT HELD'} (${answers.requests} requests, ${answers.atLeast500} >= 500, health p99 ${p99Ms.toFixed(1)} ms, longest loop block ${longest.cpuMs.toFixed(0)} ms CPU / ${longest.wallMs.toFixed(0)} ms wall${longest.inFlight.length ? ` during ${longest.inFlight.join(' + ')}` : ''}) ${outcome.detail}`);
    }
  } finally {
    await server.stop();
    blockLog.remove();
  }
  const table = [
    '| attack | requests | answers >= 500 | /health p99 | /health max | longest loop block: CPU / wall | outcome |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...rows.map((r) => `| ${r.attack} | ${r.requests} | ${r.answersAtLeast500} | ${r.healthP99Ms.toFixed(1)} ms | ${r.healthMaxMs.toFixed(1)} ms | ${r.longestBlock.cpuMs.toFixed(0)} / ${r.longestBlock.wallMs.toFixed(0)} ms | ${r.held ? 'held' : '**not held**'}: ${r.detail.replace(/\|/g, '\\|')} |`),
  ].join('\n');
  console.log(`${table}\n\nLoad average at the end: ${loadavg().map((l) => l.toFixed(2)).join(' / ')} on ${cpus().length} cores.`);
  const out = join(repoRoot, 'bench/results/adversarial.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({ at: new Date().toISOString(), cores: cpus().length, loadAverage: loadavg(), healthP99BarMs: HEALTH_P99_BAR_MS, rows }, null, 2));
  log(`wrote ${out}`);
  if (rows.some((r) => !r.held)) process.exitCode = 1;
}

await main();
