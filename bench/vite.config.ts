/**
 * Production build of the engine bench page and the studio, for `npm run bench`: the app's
 * vite.config.ts (isolation headers, ORT handling) with both pages as inputs (the studio for the
 * perceived click latency, bench/studioClicks.ts), output in the gitignored bench/results.
 */
import { mergeConfig } from 'vite';
import appConfig from '../vite.config';

const config = mergeConfig(appConfig, {
  build: { outDir: 'bench/results/site', emptyOutDir: true, sourcemap: false },
});
// mergeConfig would merge the app's inputs in; these replace them.
config.build.rolldownOptions = { ...config.build.rolldownOptions, input: { main: 'index.html', 'engine-bench': 'bench/browser/index.html' } };

export default config;
