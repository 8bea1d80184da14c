/**
 * The core must run unchanged in a browser worker and in Node: outside adapters/ it may import
 * neither Node built-ins, nor onnxruntime, nor image libraries, and must not touch DOM globals.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const engineDir = new URL('.', import.meta.url).pathname;

function coreFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'adapters' || name === 'worker' ? [] : coreFiles(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

const FORBIDDEN_MODULES = [/^node:/, /^(fs|path|os|crypto|url|child_process|worker_threads|stream|buffer|util)(\/|$)/, /^onnxruntime/, /^sharp$/, /^react/, /^konva/];
const FORBIDDEN_GLOBALS = /\b(document|window|navigator|localStorage|HTMLCanvasElement|OffscreenCanvas|ImageData|process|require|Buffer|__dirname)\b/;

function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

describe('engine core purity', () => {
  const files = coreFiles(engineDir);

  it('finds the core files', () => {
    expect(files.map((f) => relative(engineDir, f))).toEqual(expect.arrayContaining(['engine.ts', 'polygons.ts', 'preprocess.ts']));
  });

  it.each(files.map((f) => [relative(engineDir, f), f]))('%s imports no DOM/Node/runtime modules', (_name, file) => {
    const source = stripComments(readFileSync(file, 'utf8'));
    const specifiers = [...source.matchAll(/(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g)].map(
      (m) => m[1] ?? m[2] ?? m[3],
    );
    for (const spec of specifiers) {
      expect(FORBIDDEN_MODULES.some((re) => re.test(spec)), `${spec} imported`).toBe(false);
      if (spec.startsWith('.')) expect(spec, 'core must not import adapters').not.toMatch(/adapters\//);
      // One direction between the rooms: the contract imports the engine, never the reverse (README, Architecture).
      expect(spec, 'the engine must not import the contract').not.toMatch(/(^|\/)contract(\/|$)/);
    }
    const globalUse = source.match(FORBIDDEN_GLOBALS);
    expect(globalUse?.[0], 'DOM/Node global used').toBeUndefined();
  });
});
