/**
 * `npx tsx bench/projectsBench.ts`: shared projects (issue 28) on a server process of their own
 * (temporary SQLite, loopback), through the studio's own client code (src/app/projects):
 *   1. HTTP floor: GET /api/v1/health, what any request pays,
 *   2. opening a project of --images photos (5 objects each): `openProject` — the project, its
 *      image list and every image's annotations, what the studio's list and objects need,
 *   3. the same plus the first photo's file: what the studio waits for before it shows the project
 *      (the list, the objects, the first photo; the other photos stream in after), and plus every
 *      photo's file,
 *   4. the edit-sync round trip: one object of one image moved, `ProjectSync.push` — the comparison
 *      of every image with the server's copy, then one PUT with the revision, answered with the new
 *      revision — measured at the client; and that PUT alone (the server's time plus loopback HTTP).
 *   5. the same open in Chromium (bench/projectsBrowserOpen.ts): the built studio, served by the same
 *      server process, opens the project from its Project panel; timed from the click on
 *      "Open <project>" to the painted frame whose image list has a row per photo, and to every
 *      row's thumbnail loaded: those in view, then all of them, the list scrolled down as they load.
 *      dist/ is built first (`npx vite build`) when it is missing.
 * Requests of one open (2-4) go at most 6 at a time, as a browser sends them to one origin over HTTP/1.1.
 * Prints a table and writes bench/results/projectsBench.json.
 *
 *   npx tsx bench/projectsBench.ts [--images 200] [--opens 10] [--edits 100] [--browser-opens 5] [--studio DIR]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import type { AnnotationObject } from '../src/contract/projects';
import { emptyDocument, type StudioDocument } from '../src/app/state/model';
import { type Annotation } from '../src/annotations/annotation';
import { setObjects } from '../src/app/state/documentOps';
import { ProjectApi } from '../src/app/projects/projectApi';
import { openProject, ProjectSync } from '../src/app/projects/projectSync';
import { timeBrowserOpens } from './projectsBrowserOpen';
import { startServerProcess } from './serverProcess';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const log = (line: string) => void process.stderr.write(`[bench:projects] ${line}\n`);
const { values: args } = parseArgs({
  options: {
    images: { type: 'string', default: '200' },
    opens: { type: 'string', default: '10' },
    edits: { type: 'string', default: '100' },
    'browser-opens': { type: 'string', default: '5' },
    /** Another build of the studio to open (e.g. one of an earlier commit, to compare in one stretch). */
    studio: { type: 'string' },
    out: { type: 'string', default: join(repoRoot, 'bench/results/projectsBench.json') },
  },
});
const IMAGES = Number(args.images);
const OPENS = Number(args.opens);
const EDITS = Number(args.edits);
const BROWSER_OPENS = Number(args['browser-opens']);
const PASSWORD = 'bench-password-1';
const BROWSER_CONNECTIONS = 6;

interface Stats {
  n: number;
  p50: number;
  p90: number;
  min: number;
  max: number;
}
const round = (v: number) => Math.round(v * 10) / 10;
function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  return { n: samples.length, p50: round(q(0.5)), p90: round(q(0.9)), min: round(sorted[0]), max: round(sorted[sorted.length - 1]) };
}

async function timed(n: number, run: (i: number) => Promise<unknown>): Promise<Stats> {
  await run(-1); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await run(i);
    samples.push(performance.now() - t);
  }
  return stats(samples);
}

/** `fetch` that sends at most `limit` requests at a time, like a browser to one HTTP/1.1 origin. */
function limitedFetch(limit: number): typeof fetch {
  const unlimited = globalThis.fetch;
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (input, init) => {
    if (active >= limit) await new Promise<void>((go) => waiting.push(go));
    active++;
    try {
      const response = await unlimited(input, init);
      // The body is read by the caller: hold the slot until it is.
      const body = new Uint8Array(await response.arrayBuffer());
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

const circle = (cx: number, cy: number, r: number): [number, number][] => Array.from({ length: 48 }, (_, k) => [round(cx + r * Math.cos((k / 48) * 2 * Math.PI)), round(cy + r * Math.sin((k / 48) * 2 * Math.PI))]);
const objectsOf = (i: number): AnnotationObject[] =>
  Array.from({ length: 5 }, (_, k) => ({
    id: `o${i}-${k}`,
    classId: 1 + (k % 3),
    polygons: [{ outer: circle(80 + k * 120, 150 + (i % 7) * 10, 40), holes: [] }],
    source: 'local',
    confidence: 0.9,
    visible: true,
    review: 'unreviewed',
  }));

async function main(): Promise<void> {
  const staticDir = args.studio ? resolve(args.studio) : join(repoRoot, 'dist');
  if (BROWSER_OPENS > 0 && !args.studio && !existsSync(join(staticDir, 'index.html'))) {
    log('building the studio (npx vite build) for the Chromium leg');
    execFileSync('npx', ['vite', 'build'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const server = await startServerProcess('projects', { STATIC_DIR: staticDir });
  log(`server ${server.url}, ${IMAGES} images`);
  try {
    const email = `bench-${Date.now()}@example.test`;
    const signup = await fetch(`${server.url}/api/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    const cookies = signup.headers.getSetCookie().map((c) => c.split(';')[0]);
    const csrf = cookies.find((c) => c.startsWith('mw_csrf='))!.slice('mw_csrf='.length);
    const keyResponse = await fetch(`${server.url}/api/v1/api-keys`, { method: 'POST', headers: { cookie: cookies.join('; '), 'x-csrf-token': csrf } });
    const { key } = (await keyResponse.json()) as { key: string };
    const api = new ProjectApi({ baseUrl: server.url, authHeaders: () => ({ authorization: `Bearer ${key}` }) });
    const classes = [
      { id: 1, name: 'cat', color: '#ff5c5c' },
      { id: 2, name: 'ear', color: '#3fa7ff' },
      { id: 3, name: 'eye', color: '#a0e060' },
    ];
    const project = await api.create('Bench', classes);

    // Distinct photos (a mark in a corner makes each file its own), 800 px wide JPEGs like phone exports scaled down.
    const source = readFileSync(join(repoRoot, 'public/samples/chelsea.png'));
    const setupStart = performance.now();
    for (let start = 0; start < IMAGES; start += 8) {
      await Promise.all(
        Array.from({ length: Math.min(8, IMAGES - start) }, async (_, j) => {
          const i = start + j;
          const bytes = await sharp(source)
            .resize(800)
            .composite([{ input: { create: { width: 8, height: 8, channels: 3, background: { r: i % 256, g: (i * 7) % 256, b: (i * 13) % 256 } } }, top: 0, left: 0 }])
            .jpeg({ quality: 80 })
            .toBuffer();
          const image = await api.addImage(project.id, `photo-${String(i).padStart(3, '0')}.jpg`, bytes.toString('base64'));
          await api.writeAnnotations(project.id, image.id, 0, objectsOf(i));
        }),
      );
    }
    log(`set up ${IMAGES} images with 5 objects each in ${Math.round(performance.now() - setupStart)} ms`);

    const httpFloor = await timed(EDITS, () => fetch(`${server.url}/api/v1/health`).then((r) => r.text()));
    const unlimited = globalThis.fetch;
    globalThis.fetch = limitedFetch(BROWSER_CONNECTIONS);
    const studioId = (image: { sha256: string }) => `img-${image.sha256.slice(0, 24)}`;
    const openAnnotations = await timed(OPENS, () => openProject(api, project.id, studioId));
    const openShown = await timed(OPENS, async () => {
      const opened = await openProject(api, project.id, studioId);
      const [first] = opened.files.values();
      await api.imageFile(project.id, first.id);
    });
    const openWithFiles = await timed(OPENS, async () => {
      const opened = await openProject(api, project.id, studioId);
      await Promise.all([...opened.files.values()].map((image) => api.imageFile(project.id, image.id)));
    });
    globalThis.fetch = unlimited;

    const opened = await openProject(api, project.id, studioId);
    let doc: StudioDocument = { ...emptyDocument(), ...opened.document };
    const sync = new ProjectSync(opened.project, opened.images, {
      api,
      document: () => doc,
      replaceObjects: (imageId, objects) => (doc = setObjects(doc, imageId, objects)),
      imageBase64: async () => {
        throw new Error('no new images in this bench');
      },
      status: () => undefined,
    });
    const imageId = doc.images[0].id;
    const editSync = await timed(EDITS, async (i) => {
      const objects = doc.objects[imageId] as Annotation[];
      const moved = objects[0].polygons.map((p) => ({ ...p, outer: p.outer.map(([x, y]) => [x + 1 + (i & 1), y] as [number, number]) }));
      doc = setObjects(doc, imageId, [{ ...objects[0], polygons: moved }, ...objects.slice(1)]);
      await sync.push();
    });
    const synced = opened.images.get(imageId)!;
    if (synced.revision !== EDITS + 2) throw new Error(`expected revision ${EDITS + 2} after the edits, the server has ${synced.revision}`);
    // The same write without the sync's comparison of every image: what the server and HTTP take.
    const writeOnly = await timed(EDITS, async () => {
      synced.revision = (await api.writeAnnotations(project.id, synced.serverId, synced.revision, synced.base)).revision;
    });

    let browserList: Stats | undefined;
    let browserThumbnails: Stats | undefined;
    let browserInView: Stats | undefined;
    let rowsInView: number[] = [];
    let loadDuringBrowser: number[][] = [];
    let firstBrowserOpen: unknown;
    if (BROWSER_OPENS > 0) {
      log(`Chromium: ${BROWSER_OPENS} opens of the project from the Project panel`);
      const loadBefore = loadavg();
      const { first, samples } = await timeBrowserOpens(server.url, email, PASSWORD, project.name, IMAGES, BROWSER_OPENS);
      firstBrowserOpen = first;
      log(`first open after the upload (untimed warm-up): list ${round(first.listPainted)} ms, thumbnails in view ${round(first.inViewLoaded)} ms, all ${round(first.thumbnailsLoaded)} ms`);
      loadDuringBrowser = [loadBefore, loadavg()].map((l) => l.map(round));
      log(`load average ${loadDuringBrowser[0].join(' ')} at the start of the Chromium opens, ${loadDuringBrowser[1].join(' ')} at the end`);
      browserList = stats(samples.map((s) => s.listPainted));
      browserInView = stats(samples.map((s) => s.inViewLoaded));
      rowsInView = samples.map((s) => s.inViewRows);
      browserThumbnails = stats(samples.map((s) => s.thumbnailsLoaded));
    }

    const results = { images: IMAGES, objectsPerImage: 5, browserConnections: BROWSER_CONNECTIONS, httpFloor, openAnnotations, openShown, openWithFiles, browserList, browserInView, rowsInView, browserThumbnails, firstBrowserOpen, loadDuringBrowser, editSync, writeOnly };
    const rows: Array<[string, Stats]> = [
      ['HTTP floor (GET /health)', httpFloor],
      [`open: project + list + ${IMAGES} images' annotations`, openAnnotations],
      ['open as the studio shows it: the same + the first photo', openShown],
      [`open: the same + all ${IMAGES} photo files (they stream in after)`, openWithFiles],
      ...(browserList && browserInView && browserThumbnails
        ? ([
            [`Chromium: click "Open" to the list of ${IMAGES} rows painted`, browserList],
            [`Chromium: click "Open" to the thumbnails in view loaded (${Math.min(...rowsInView)}–${Math.max(...rowsInView)} rows)`, browserInView],
            [`Chromium: click "Open" to all ${IMAGES} thumbnails loaded, scrolling down the list`, browserThumbnails],
          ] as Array<[string, Stats]>)
        : []),
      ['edit sync: one object moved, ProjectSync.push', editSync],
      ['  of which the PUT with revision alone', writeOnly],
    ];
    const table = [
      '| ms | n | p50 | p90 | min | max |',
      '|---|---:|---:|---:|---:|---:|',
      ...rows.map(([name, s]) => `| ${name} | ${s.n} | ${s.p50} | ${s.p90} | ${s.min} | ${s.max} |`),
    ].join('\n');
    process.stdout.write(`${table}\n`);
    mkdirSync(dirname(args.out!), { recursive: true });
    writeFileSync(args.out!, `${JSON.stringify({ date: new Date().toISOString(), machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg() }, ...results }, null, 2)}\n`);
    log(`wrote ${args.out}`);
  } finally {
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
