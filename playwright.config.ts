import { defineConfig } from '@playwright/test';

const port = Number(process.env.E2E_PORT ?? 4173);

/**
 * The real API server (src/server/main.ts) for the remote-mode studio tests (e2e/appRemote.spec.ts):
 * it serves the dist/ built by the first web server plus the API on one origin, with a fresh SQLite
 * database per run. Set E2E_API_URL to test against a server you run yourself.
 */
const apiPort = Number(process.env.E2E_API_PORT ?? 4180);
const apiDataDir = `/tmp/maskwright-e2e-api-${apiPort}`;
const startApiServer = !process.env.E2E_API_URL;
process.env.E2E_API_URL ??= `http://127.0.0.1:${apiPort}`;

/** Debian's Chromium; Playwright's own browser download cannot work on these machines. */
export const chromiumLaunch = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

export default defineConfig({
  testDir: 'e2e',
  timeout: 180_000,
  expect: { timeout: 60_000 },
  workers: 1,
  retries: 0,
  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]],
  outputDir: 'test-results',
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    headless: true,
    launchOptions: chromiumLaunch,
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
  },
  webServer: [
    {
      command: `npx vite build && npx vite preview --port ${port} --strictPort --host 127.0.0.1`,
      url: `http://127.0.0.1:${port}`,
      reuseExistingServer: !process.env.CI,
      timeout: 300_000,
    },
    // Started after the build above (Playwright starts web servers one after the other).
    ...(startApiServer
      ? [
          {
            command: `rm -rf ${apiDataDir} && DATA_DIR=${apiDataDir} PORT=${apiPort} HOST=127.0.0.1 SIGNUP_FREE_PER_ADDRESS=1000 node --import tsx src/server/main.ts`,
            url: `http://127.0.0.1:${apiPort}/api/v1/credit-packages`,
            reuseExistingServer: !process.env.CI,
            timeout: 180_000,
          },
        ]
      : []),
  ],
});
