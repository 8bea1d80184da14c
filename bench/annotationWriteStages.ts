/**
 * `npm run bench:write-stages`: where a large annotation write's time goes (issue 39), stage by
 * stage, each timed alone in this process on a real database (a temporary SQLite file with the
 * server's settings: WAL, synchronous=FULL; or PostgreSQL with --database-url): parse, limits,
 * schema, checks and stamping, serialisation, the copies across a thread boundary (structured
 * clone, as postMessage makes them), the conditional UPDATE with the event row in one transaction,
 * and the response text. The medians of `--runs` runs per stage, for the two large bodies
 * bench:health writes.
 *
 *   npm run bench:write-stages -- [--runs 5] [--database-url postgres://…]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { WriteAnnotationsRequest, type AnnotationObject } from '../src/contract/projects';
import { openDatabase, type Db } from '../src/server/db/connect';
import { annotationSize } from '../src/server/domain/projects/annotationLimits';
import { stampChanges } from '../src/server/domain/projects/objectChanges';
import { revisionedBody } from '../src/server/domain/projects/revisionedBody';
import { parseBody } from '../src/server/http/validation';
import { ringObjects } from './ringObjects';

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '5' }, 'database-url': { type: 'string' } } });
const runs = Number(args.runs);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function timed(fn: () => unknown): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

async function seed(db: Db): Promise<{ projectId: string; imageId: string }> {
  const now = Date.now();
  await db.kysely.insertInto('accounts').values({ id: 'acc', email: 'bench@example.test', password_hash: 'x', balance: 0, created_at: now }).execute();
  await db.kysely.insertInto('projects').values({ id: 'prj', owner_id: 'acc', name: 'Stages', classes: '[]', created_at: now, updated_at: now }).execute();
  await db.kysely.insertInto('blobs').values({ digest: 'd', size: 1, created_at: now }).execute();
  await db.kysely
    .insertInto('project_images')
    .values({ id: 'img', project_id: 'prj', digest: 'd', name: 'a.png', width: 451, height: 300, revision: 0, objects: '[]', vertex_count: 0, updated_by: null, updated_at: null, created_by: 'acc', created_at: now })
    .execute();
  return { projectId: 'prj', imageId: 'img' };
}

async function stages(db: Db, label: string, objects: AnnotationObject[]): Promise<Record<string, number | string>> {
  const rawBody = JSON.stringify({ revision: 0, objects });
  const times: Record<string, number[]> = {};
  const add = (stage: string, ms: number) => (times[stage] ??= []).push(ms);
  let revision = (await db.kysely.selectFrom('project_images').select('revision').where('id', '=', 'img').executeTakeFirstOrThrow()).revision;
  for (let run = 0; run < runs; run++) {
    let body: unknown;
    add('JSON.parse', await timed(() => (body = revisionedBody(rawBody, undefined))));
    add('limits (count)', await timed(() => annotationSize((body as { objects: unknown }).objects)));
    let parsed: { objects: AnnotationObject[] } | undefined;
    add('zod schema', await timed(() => (parsed = parseBody(WriteAnnotationsRequest, body))));
    let stamped: AnnotationObject[] = [];
    add('stamp vs stored', await timed(() => (stamped = stampChanges(objects, parsed!.objects, 'bench@example.test', new Date().toISOString()))));
    let objectsJson = '';
    add('JSON.stringify', await timed(() => (objectsJson = JSON.stringify(stamped))));
    add('clone body to a thread', await timed(() => structuredClone({ rawBody })));
    add('clone result back', await timed(() => structuredClone({ objectsJson })));
    add('UPDATE + event (transaction)', await timed(() =>
      db.transaction(async (trx) => {
        await trx.updateTable('project_images').set({ objects: objectsJson, vertex_count: 1, revision: revision + 1, updated_at: Date.now() }).where('id', '=', 'img').where('revision', '=', revision).execute();
        await trx.insertInto('project_events').values({ project_id: 'prj', payload: '{"type":"annotations"}', created_at: Date.now() }).execute();
      }),
    ));
    revision += 1;
    add('response text', await timed(() => `${JSON.stringify({ imageId: 'img', revision }).slice(0, -1)},"objects":${objectsJson}}`));
  }
  const row: Record<string, number | string> = { write: `${label} (${(rawBody.length / 1024 / 1024).toFixed(1)} MB)` };
  for (const [stage, values] of Object.entries(times)) row[stage] = median(values);
  return row;
}

const dir = mkdtempSync(join(tmpdir(), 'mw-write-stages-'));
const db = await openDatabase(args['database-url'] ? { databaseUrl: args['database-url'], pgSchema: `stages_${Date.now()}` } : { sqliteFile: join(dir, 'stages.sqlite') });
try {
  process.stderr.write(`[bench:write-stages] ${db.dialect}, load average ${loadavg()[0].toFixed(2)} on ${cpus().length} cores, median of ${runs} runs\n`);
  await seed(db);
  const rows = [await stages(db, '2,000 objects × 125 vertices', ringObjects(2000, 125, 451, 300)), await stages(db, '4 rings × 62,500 vertices', ringObjects(4, 62_500, 451, 300))];
  const columns = Object.keys(rows[0]).filter((c) => c !== 'write');
  console.log(`| stage | ${rows.map((r) => r.write).join(' | ')} |`);
  console.log(`|---|${rows.map(() => '---:').join('|')}|`);
  for (const column of columns) console.log(`| ${column} | ${rows.map((r) => `${(r[column] as number).toFixed(1)} ms`).join(' | ')} |`);
} finally {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
