/**
 * Production build of the engine bench page alone (no app), for `npm run bench`: the app's
 * vite.config.ts (isolation headers, ORT handling) with only the bench page as input, output in the
 * gitignored bench/results.
 */
import { mergeConfig } from 'vite';
import appConfig from '../vite.config';

const config = mergeConfig(appConfig, {
  build: { outDir: 'bench/results/site', emptyOutDir: true, sourcemap: false },
});
// mergeConfig would merge the app's inputs in; the bench page replaces them.
config.build.rolldownOptions = { ...config.build.rolldownOptions, input: { 'engine-bench': 'bench/browser/index.html' } };

export default config;
