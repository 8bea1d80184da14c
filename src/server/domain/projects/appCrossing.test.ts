/**
 * The server reaches into the studio's room at one place, datasetExport.ts, for the format registry
 * (src/server/README.md says why). Everything that import pulls in must stay pure data code: no DOM,
 * no React or canvas, no browser storage, no npm package, and no part of the studio beyond the
 * export, geometry, model and project mapping modules.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../../../..');
const ALLOWED = [/^src\/app\/export\//, /^src\/app\/geometry\//, /^src\/app\/state\/model\.ts$/, /^src\/app\/state\/reviewOps\.ts$/, /^src\/app\/projects\/annotationMapping\.ts$/, /^src\/engine\//, /^src\/contract\//, /^src\/server\/domain\/projects\/datasetExport\.ts$/];
const DOM_GLOBALS = /\b(document|window|navigator|localStorage|indexedDB|HTMLElement|HTMLCanvasElement|OffscreenCanvas|ImageData|createImageBitmap|requestAnimationFrame)\b/;

const stripComments = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
const specifiers = (source: string) =>
  [...source.matchAll(/(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g)].map((m) => m[1] ?? m[2] ?? m[3]);

/** Every file of the repository that `entry` reaches through imports (type-only ones included), and the packages named. */
function closure(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const spec of specifiers(stripComments(readFileSync(file, 'utf8')))) {
      if (!spec.startsWith('.')) packages.add(spec);
      else {
        const base = resolve(dirname(file), spec);
        const target = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find(existsSync);
        if (!target) throw new Error(`${spec} from ${file} not found`);
        visit(target);
      }
    }
  };
  visit(join(root, entry));
  return { files: [...files].map((f) => relative(root, f)).sort(), packages: [...packages].sort() };
}

describe("the server's one crossing into the studio's room", () => {
  const { files, packages } = closure('src/server/domain/projects/datasetExport.ts');

  it('reaches the format registry and nothing of the studio beyond the pure modules', () => {
    expect(files).toContain('src/app/export/formats/index.ts');
    expect(files.filter((f) => !ALLOWED.some((re) => re.test(f)))).toEqual([]);
  });

  it('uses no npm package (zod through the contract only) and no DOM global', () => {
    expect(packages.filter((p) => p !== 'zod')).toEqual([]);
    for (const file of files) expect(stripComments(readFileSync(join(root, file), 'utf8')).match(DOM_GLOBALS)?.[0], file).toBeUndefined();
  });
});
