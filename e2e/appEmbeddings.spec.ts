import { expect, test } from '@playwright/test';
import { clickImage, openSample, waitForEncoder } from './appHelpers';

/**
 * Never wait twice: the studio keeps each photo's embedding in IndexedDB (keyed by the photo's
 * content and the encoder's identity), so a reload answers clicks without running the encoder, and
 * the worker refuses an embedding made by another model.
 */

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await page.evaluate(() => Promise.all(['maskwright', 'maskwright-embeddings'].map((name) => indexedDB.deleteDatabase(name))));
  await page.evaluate(() => localStorage.clear());
  await page.reload();
});

test('a reload restores the photo’s embedding (and its mirror image’s) from IndexedDB: no encoder run, clicks still segment', async ({ page }) => {
  await openSample(page, 'Coffee cup');
  await waitForEncoder(page);
  // A click and a pause: the mirror pass embeds the photo's mirror image, which is stored too.
  await clickImage(page, 300, 235);
  await expect(page.getByTestId('mirror-passed')).toBeVisible();
  const status = page.getByTestId('status-bar');
  // Timings live behind the status bar's Details toggle (issue 18); the choice survives the reload.
  await status.getByRole('button', { name: 'Details' }).click();
  await expect(status).toContainText(/Encoder \d+ ms/);
  await expect(page.getByTestId('stored-embeddings')).toHaveCount(0);
  await expect(page.getByTestId('model-variants')).toContainText(/int8|fp32/);
  // The embedding is written after the encoder run; wait until it is in IndexedDB.
  await expect
    .poll(() =>
      page.evaluate(
        () =>
          new Promise<number>((resolve) => {
            const open = indexedDB.open('maskwright-embeddings');
            open.onsuccess = () => {
              const db = open.result;
              if (!db.objectStoreNames.contains('embeddings')) return resolve(0);
              const count = db.transaction('embeddings').objectStore('embeddings').count();
              count.onsuccess = () => resolve(count.result);
            };
            open.onerror = () => resolve(0);
          }),
      ),
    )
    .toBeGreaterThanOrEqual(3); // the photo's embedding, its mirror image's, and the index

  await page.reload();
  await waitForEncoder(page);
  await expect(page.getByTestId('stored-embeddings')).toHaveText(/1 from storage/);
  await expect(status).toContainText('Encoder cache hit');

  await clickImage(page, 300, 235);
  const candidates = page.getByRole('radiogroup', { name: 'Mask candidates' }).getByRole('radio');
  await expect(candidates.first()).toBeVisible();
  // The pause finds the mirror image's embedding in storage as well.
  await expect(page.getByTestId('mirror-passed')).toBeVisible();
  await expect(page.getByTestId('stored-embeddings')).toHaveText(/2 from storage/);
});

test('the worker refuses an embedding made by another encoder', async ({ page }) => {
  await page.goto('/bench/browser/');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  const message = await page.evaluate(() =>
    window.maskwrightBench.ours
      .start({ slot: 'identity', imageUrl: '/samples/coffee.png' })
      .then(() => window.maskwrightBench.ours.importForeign('identity'))
      .then(
        () => 'accepted',
        (error: Error) => error.message,
      ),
  );
  expect(message).toMatch(/the embedding is from other-encoder\.onnx@0+, this engine runs sam-encoder/);
});
