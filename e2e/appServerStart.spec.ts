import { expect, test, type Page } from '@playwright/test';
import { clickImage, openSample, screenshot, signUpAndUseNewKey, waitForEncoder } from './appHelpers';

/**
 * Server start against the real API server (started by playwright.config.ts): the server makes the
 * photo's embedding (POST /api/v1/embeddings, 1 credit per photo and account), the browser's worker
 * decodes every click; the same photo opened again costs nothing; without a usable key the studio
 * says so and analyses the photo on this device.
 */
const API_URL = process.env.E2E_API_URL ?? 'http://127.0.0.1:4180';
test.use({ baseURL: API_URL });

/** Empties this origin's stored session and embeddings (their object stores; the page keeps its connections). */
const forgetStoredWork = (page: Page) =>
  page.evaluate(() =>
    Promise.all(
      ['maskwright', 'maskwright-embeddings'].map(
        (name) =>
          new Promise<void>((done) => {
            const open = indexedDB.open(name);
            // A database not there yet stays absent: creating it empty would hide the app's stores.
            open.onupgradeneeded = () => open.transaction?.abort();
            open.onerror = () => done();
            open.onsuccess = () => {
              const db = open.result;
              const stores = [...db.objectStoreNames];
              if (stores.length === 0) return (db.close(), done());
              const clearing = db.transaction(stores, 'readwrite');
              for (const store of stores) clearing.objectStore(store).clear();
              clearing.oncomplete = clearing.onerror = () => (db.close(), done());
            };
          }),
      ),
    ),
  );

const embeddingAnswer = (page: Page) => page.waitForResponse((r) => r.url().endsWith('/api/v1/embeddings') && r.request().method() === 'POST', { timeout: 120_000 });

async function creditsOf(page: Page, key: string): Promise<number> {
  const response = await page.request.get('/api/v1/account', { headers: { Authorization: `Bearer ${key}` } });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { credits: number }).credits;
}

test('server start: the server analyses the photo for 1 credit, clicks decode here, the same photo again costs nothing', async ({ page }) => {
  await page.goto('/');
  await forgetStoredWork(page);
  const key = await signUpAndUseNewKey(page, 'server-start', 'Server start');
  await expect(page.getByTestId('server-start')).toContainText('Server start, local clicks · 1 credit per photo');

  const served = embeddingAnswer(page);
  await openSample(page, 'Coffee cup');
  const first = await served;
  expect(first.status()).toBe(200);
  expect(first.headers()['x-idempotent-replayed']).toBeUndefined();
  await waitForEncoder(page);
  await expect(page.getByTestId('server-start')).toContainText('1 photo analysed by the server');

  await clickImage(page, 300, 235);
  await expect(page.getByRole('radiogroup', { name: 'Mask candidates' }).getByRole('radio').first()).toBeVisible();
  await screenshot(page, 'server-start-01-mask');
  expect(await creditsOf(page, key)).toBe(4);

  // Open the same photo afresh (nothing kept in this browser): the server replays its answer for free.
  await forgetStoredWork(page);
  await page.reload();
  const again = embeddingAnswer(page);
  await openSample(page, 'Coffee cup');
  const second = await again;
  expect(second.status()).toBe(200);
  expect(second.headers()['x-idempotent-replayed']).toBe('true');
  await waitForEncoder(page);
  await clickImage(page, 300, 235);
  await expect(page.getByRole('radiogroup', { name: 'Mask candidates' }).getByRole('radio').first()).toBeVisible();
  expect(await creditsOf(page, key)).toBe(4);
});

test('server start without a usable API key: the studio says so and analyses the photo on this device', async ({ page }) => {
  await page.goto('/');
  await forgetStoredWork(page);
  await page.evaluate(() => {
    localStorage.clear();
    localStorage.setItem('maskwright.remote', JSON.stringify({ baseUrl: '', apiKey: 'mwk_not-a-real-key' }));
  });
  await page.reload();
  await page.getByRole('radiogroup', { name: 'Inference' }).getByRole('radio', { name: 'Server start' }).check();
  const refused = embeddingAnswer(page);
  await openSample(page, 'Coffee cup');
  expect((await refused).status()).toBe(401);
  await expect(page.getByRole('alert')).toContainText('analysed on this device instead');
  await waitForEncoder(page);
  await clickImage(page, 300, 235);
  await expect(page.getByRole('radiogroup', { name: 'Mask candidates' }).getByRole('radio').first()).toBeVisible();
  await screenshot(page, 'server-start-02-fallback');
});
