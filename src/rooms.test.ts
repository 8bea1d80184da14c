/**
 * The rooms under src/ and the one direction between them (README, Architecture): the engine at the
 * bottom; the annotation model above it; the contract above both; the studio, the server and the CLI
 * at the top, none of the three reaching into another. A file that imports against the direction
 * fails here with its name and the import. Inside the studio, its parts (folders and top files)
 * stand on floors too: no import runs back up, which is to say no two parts import each other, even
 * through others.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = dirname(new URL(import.meta.url).pathname);
const ROOMS = ['engine', 'annotations', 'contract', 'app', 'server', 'cli'] as const;
type Room = (typeof ROOMS)[number];

/** Which rooms each room may import from (besides itself). Tests are held to the same rule. */
const MAY_IMPORT: Record<Room, readonly Room[]> = {
  engine: [],
  annotations: ['engine'],
  contract: ['engine', 'annotations'],
  app: ['engine', 'annotations', 'contract'],
  server: ['engine', 'annotations', 'contract'],
  cli: ['engine', 'annotations', 'contract'],
};

/** Tests may check an engine answer against the contract's schema (what a caller receives). */
const TESTS_MAY_ALSO: Partial<Record<Room, readonly Room[]>> = { engine: ['contract'] };
const allowed = (room: Room, file: string, target: Room) => MAY_IMPORT[room].includes(target) || (/\.test\.tsx?$/.test(file) && (TESTS_MAY_ALSO[room] ?? []).includes(target));

/** Packages the annotation room may use: it runs in the browser, the server, the CLI and the evals alike. */
const ANNOTATION_PACKAGES = ['zod'];
const DOM_OR_NODE_GLOBALS = /\b(document|window|navigator|localStorage|indexedDB|HTMLElement|HTMLCanvasElement|OffscreenCanvas|ImageData|createImageBitmap|requestAnimationFrame|process|Buffer|__dirname)\b/;

const stripComments = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
const specifiers = (source: string) =>
  [...source.matchAll(/(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g)].map((m) => m[1] ?? m[2] ?? m[3]);

function filesOf(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesOf(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

const roomOf = (file: string): Room | undefined => ROOMS.find((room) => relative(src, file).split('/')[0] === room);

const imports = ROOMS.flatMap((room) =>
  filesOf(join(src, room)).flatMap((file) =>
    specifiers(stripComments(readFileSync(file, 'utf8'))).map((spec) => ({ room, file: relative(src, file), spec, target: spec.startsWith('.') ? roomOf(resolve(dirname(file), spec)) : undefined })),
  ),
);

describe('the rooms under src/', () => {
  it('finds imports in every room', () => {
    for (const room of ROOMS) expect(imports.some((i) => i.room === room), room).toBe(true);
  });

  it('imports only downwards: no room reaches one it may not', () => {
    const against = imports.filter((i) => i.target && i.target !== i.room && !allowed(i.room, i.file, i.target)).map((i) => `${i.file} → ${i.spec}`);
    expect(against).toEqual([]);
  });

  it('keeps the annotation model free of the DOM, Node and packages beyond zod', () => {
    const annotationFiles = imports.filter((i) => i.room === 'annotations' && !i.file.endsWith('.test.ts'));
    expect(annotationFiles.filter((i) => !i.spec.startsWith('.') && !ANNOTATION_PACKAGES.includes(i.spec)).map((i) => `${i.file} → ${i.spec}`)).toEqual([]);
    for (const file of new Set(annotationFiles.map((i) => i.file))) {
      expect(stripComments(readFileSync(join(src, file), 'utf8')).match(DOM_OR_NODE_GLOBALS)?.[0], file).toBeUndefined();
    }
  });
});

/** The part of the studio a file stands in: its folder under src/app, or the top file itself. */
const appPartOf = (file: string) => relative(join(src, 'app'), file).split('/')[0].replace(/\.tsx?$/, '');

/** Each import between two parts of the studio, by shipped files (tests may reach anywhere). */
const appArrows = imports
  .filter((i) => i.room === 'app' && i.target === 'app' && !/\.test\.tsx?$/.test(i.file))
  .map((i) => ({ ...i, from: appPartOf(join(src, i.file)), to: appPartOf(resolve(dirname(join(src, i.file)), i.spec)) }))
  .filter((i) => i.from !== i.to);

/** The parts that `start` reaches by imports, itself only when a circle leads back to it. */
function reachable(start: string): Set<string> {
  const seen = new Set<string>();
  const stack = [start];
  while (stack.length) {
    const part = stack.pop()!;
    for (const arrow of appArrows) if (arrow.from === part && !seen.has(arrow.to)) seen.add(arrow.to), stack.push(arrow.to);
  }
  return seen;
}

describe("the studio's floors (src/app)", () => {
  it('finds imports between its parts', () => {
    expect(appArrows.length).toBeGreaterThan(20);
  });

  it('has no arrow back up: no import of a part that reaches back to the importer', () => {
    const back = appArrows.filter((arrow) => reachable(arrow.to).has(arrow.from)).map((i) => `${i.file} → ${i.spec}`);
    expect(back).toEqual([]);
  });
});
