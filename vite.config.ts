/// <reference types="vitest/config" />
import { defaultClientConditions, defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * Cross-origin isolation lets onnxruntime-web run multithreaded WASM (SharedArrayBuffer).
 * The same headers are sent by the production server (src/server).
 */
export const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
} as const;

export default defineConfig({
  plugins: [react()],
  server: { headers: isolationHeaders, port: 5173 },
  preview: { headers: isolationHeaders, port: 4173 },
  // ORT resolves its .wasm/.mjs files relative to its own module URL: keep it out of pre-bundling.
  optimizeDeps: { exclude: ['onnxruntime-web'] },
  // ORT builds without an embedded wasm: ours is loaded from /ort/ (ortWeb.ts), so the bundle
  // does not emit a duplicate 14-28 MB .wasm asset per ORT variant.
  resolve: { conditions: ['onnxruntime-web-use-extern-wasm', ...defaultClientConditions] },
  worker: { format: 'es' },
  build: {
    outDir: 'dist',
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 2048,
    // The app, plus the engine bench page driven by `npm run bench` and e2e/engine.spec.ts.
    rolldownOptions: {
      input: { main: 'index.html', 'engine-bench': 'bench/browser/index.html' },
    },
  },
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts', 'bench/**/*.test.ts', 'scripts/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
