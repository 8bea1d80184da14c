/**
 * What keeping a server project's learned model in step costs the studio (ProjectLearnedSync), over
 * real HTTP against a real server on a temporary SQLite: the model's JSON (made on the page's main
 * thread when the learner changes), a write, and a stale write rebased (read the newer model, adopt
 * it, teach one lesson again, write). Models are made with random descriptors of the real length (376
 * numbers), 3 classes, at a mid size and a large one (under the server's default 32 MiB limit).
 *
 *   npx tsx bench/learnedSyncBench.ts [--runs 5]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ProjectLearnedSync } from '../src/app/learn/projectLearnedSync';
import { ProjectApi } from '../src/app/projects/projectApi';
import { LearnedClasses, type LearnedClassesState } from '../src/engine/learn/learnedClasses';
import { DESCRIPTOR_KINDS, type RegionDescriptor } from '../src/engine/learn/descriptors';
import { configFromEnv } from '../src/server/config';
import { startServer } from '../src/server/server';

const { values } = parseArgs({ options: { runs: { type: 'string' } }, strict: true });
const runs = Number(values.runs ?? 5);

let seed = 7;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31) * 2 - 1;
const descriptor = (centre: number): RegionDescriptor => ({
  // Kinds this bench does not size (the engine may have more): one number, as the classifier wants every part.
  ...(Object.fromEntries(DESCRIPTOR_KINDS.map((kind) => [kind, [random()]])) as unknown as RegionDescriptor),
  sam: Array.from({ length: 256 }, () => centre + random()),
  detectors: Array.from({ length: 100 }, () => random()),
  appearance: Array.from({ length: 20 }, () => centre + random()),
});

function model(perClass: number, background: number): LearnedClasses {
  const classes = new LearnedClasses();
  const examples = [
    ...Array.from({ length: background }, () => ({ descriptor: descriptor(0), classId: null })),
    ...['red', 'green', 'blue'].flatMap((c, k) => Array.from({ length: perClass }, () => ({ descriptor: descriptor(k + 1), classId: c }))),
  ];
  for (let i = 0; i < examples.length; i += 200) classes.learnAll(examples.slice(i, i + 200));
  return classes;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function timed(work: () => Promise<unknown> | unknown): Promise<number> {
  const t0 = performance.now();
  await work();
  return performance.now() - t0;
}

const dir = mkdtempSync(join(tmpdir(), 'mw-bench-learned-sync-'));
const server = await startServer({
  config: { ...configFromEnv({}), port: 0, host: '127.0.0.1', staticDir: join(dir, 'no-static'), rateLimitPerSecond: 1000 },
  database: { sqliteFile: join(dir, 'bench.sqlite') },
  backend: { tryReserve: () => undefined, description: 'none (bench)', close: async () => undefined },
  logger: false,
  backgroundLoops: false,
});
try {
  const signup = await fetch(`${server.url}/api/v1/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `bench-${Date.now()}@example.test`, password: 'bench password 1234' }),
  });
  const cookies = signup.headers.getSetCookie().map((c) => c.split(';')[0]);
  const csrf = cookies.find((c) => c.startsWith('mw_csrf='))!.slice('mw_csrf='.length);
  const api = new ProjectApi({ baseUrl: server.url, authHeaders: (method) => ({ cookie: cookies.join('; '), ...(method === 'GET' ? {} : { 'x-csrf-token': csrf }) }) });

  for (const [label, perClass, background] of [
    ['mid (3 × 100 examples, 300 background)', 100, 300],
    ['large (3 × 400 examples, 2,000 background)', 400, 2000],
  ] as const) {
    const base = model(perClass, background);
    const stringify: number[] = [];
    const writes: number[] = [];
    const rebases: number[] = [];
    let bytes = 0;
    const failures: string[] = [];
    for (let run = 0; run < runs; run++) {
      let step = 'create';
      try {
      const project = await api.create(`bench ${run}`, [{ id: 1, name: 'red', color: '#ff0000' }]);
      // Two studios on the project; each holds a LearnedClasses as the session learner would.
      const studio = (initial: LearnedClasses, taught: [string, string][]) => {
        let held = initial;
        let lessons = new Map<string, string>(taught);
        return {
          teach(id: string) {
            held.learnAll([{ descriptor: descriptor(1), classId: 'red' }]);
            lessons = new Map([...lessons, [id, '+red']]);
          },
          sync: new ProjectLearnedSync(
            {
              api,
              projectId: project.id,
              model: () => (held.classIds.some((c) => held.examplesOf(c) > 0) ? held.toJSON() : undefined),
              taughtLessons: () => lessons,
              documentLessons: () => lessons,
              adopt: async (state: LearnedClassesState | null, known) => {
                held = state ? LearnedClasses.fromJSON(state) : new LearnedClasses();
                lessons = new Map(known);
              },
              learnPending: async () => held.learnAll([{ descriptor: descriptor(1), classId: 'red' }]),
              notice: (message) => {
                throw new Error(message);
              },
            },
            0,
          ),
        };
      };
      const a = studio(LearnedClasses.fromJSON(base.toJSON()), [['seed', '+red']]);
      stringify.push(await timed(() => (bytes = JSON.stringify(base.toJSON()).length)));
      step = 'first write';
      writes.push(await timed(() => a.sync.open()));
      step = 'second studio';
      const b = studio(new LearnedClasses(), []);
      await b.sync.open();
      b.teach(`b${run}`);
      await b.sync.flush();
      a.teach(`a${run}`);
      step = 'rebase';
      rebases.push(await timed(() => a.sync.flush()));
      if (a.sync.serverRevision !== 3) throw new Error(`the rebased write is at revision ${a.sync.serverRevision}, not 3`);
      } catch (error) {
        const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : '';
        failures.push(`run ${run}, ${step}: ${error instanceof Error ? error.message : String(error)} ${cause}`);
      }
    }
    if (failures.length) console.log(`${label}: ${failures.length} of ${runs} runs failed: ${failures.join('; ')}`);
    console.log(
      `${label}: ${(bytes / 2 ** 20).toFixed(2)} MiB; toJSON+stringify median ${median(stringify).toFixed(1)} ms; ` +
        `first write (open, PUT) median ${median(writes).toFixed(1)} ms; stale write rebased (PUT 409, GET, adopt, teach 1, PUT) median ${median(rebases).toFixed(1)} ms; ${runs} runs`,
    );
  }
  // At the classifier's capacity the model is over the default 32 MiB limit: the studio must get the 413, not a reset connection.
  const capacity = model(600, 3000).toJSON();
  const project = await api.create('bench capacity', [{ id: 1, name: 'red', color: '#ff0000' }]);
  const notices: string[] = [];
  const overLimit = new ProjectLearnedSync(
    {
      api,
      projectId: project.id,
      model: () => capacity,
      taughtLessons: () => new Map([['seed', '+red']]),
      documentLessons: () => new Map([['seed', '+red']]),
      adopt: async () => undefined,
      learnPending: async () => undefined,
      notice: (message) => notices.push(message),
    },
    0,
  );
  const ms = await timed(() => overLimit.open());
  console.log(`capacity (3 × 600 examples, 3,000 background): ${(JSON.stringify(capacity).length / 2 ** 20).toFixed(2)} MiB; open → ${notices.length ? `notice "${notices[0]}"` : 'no notice'} after ${ms.toFixed(1)} ms`);
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
