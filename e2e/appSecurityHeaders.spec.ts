import { expect, test } from '@playwright/test';
import { clickImage, openSample, screenshot, waitForEncoder } from './appHelpers';

/**
 * The studio under the production server's security headers (src/server/http/securityHeaders.ts),
 * served by the real API server: the page is not frameable, runs no inline script, and still does
 * its whole job in Chromium — the local engine's WebAssembly compiles, its threads start, a sample
 * photo is segmented — without a single Content-Security-Policy violation, in the page or a worker.
 */
const API_URL = process.env.E2E_API_URL ?? 'http://127.0.0.1:4180';
test.use({ baseURL: API_URL });

test('the studio works under its CSP: a sample photo clicked gives a mask, nothing is refused', async ({ page, context }) => {
  const violations: string[] = [];
  const watch = (text: string) => {
    if (/Content Security Policy|Refused to|CSP violation/i.test(text)) violations.push(text);
  };
  page.on('console', (message) => watch(message.text()));
  page.on('pageerror', (error) => watch(error.message));
  page.on('worker', (worker) => worker.on('console', (message) => watch(`worker: ${message.text()}`)));
  // Reported by the browser itself for the page and (bubbling to its global) inside workers.
  await context.addInitScript(() => {
    self.addEventListener('securitypolicyviolation', (event) => {
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI} in ${event.sourceFile}:${event.lineNumber}`);
    });
  });

  const response = await page.goto('/');
  const csp = response!.headers()['content-security-policy'];
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval'");
  expect(csp).not.toContain('unsafe-inline');
  // The built page carries no inline script: every <script> has a src.
  const html = await response!.text();
  expect(html).toMatch(/<script[^>]*\bsrc=/);
  expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);

  // A fresh browser context per test: no stored session to clear (and no page.evaluate, whose own
  // eval would be reported under this very policy).
  await openSample(page, 'Coffee cup');
  await waitForEncoder(page);
  await clickImage(page, 300, 235);
  await expect(page.getByRole('radiogroup', { name: 'Mask candidates' }).getByRole('radio').first()).toBeVisible();
  await screenshot(page, 'csp-01-mask-under-policy');
  expect(violations).toEqual([]);
});

test('another site cannot frame the studio', async ({ page }) => {
  const framed: string[] = [];
  page.on('console', (message) => framed.push(message.text()));
  await page.setContent(`<iframe id="studio" src="${API_URL}/"></iframe>`);
  const frame = page.frames().find((f) => f !== page.mainFrame());
  // Chromium blocks the navigation (frame-ancestors 'none'): the frame never gets the studio.
  await expect.poll(() => frame?.evaluate(() => document.title).catch(() => 'blocked'), { timeout: 15_000 }).not.toMatch(/Maskwright/);
  await expect.poll(() => framed.some((text) => /frame-ancestors|X-Frame-Options|refused to connect/i.test(text)), { timeout: 15_000 }).toBe(true);
});
