import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { sharedPath } from '../test/support/sharedData';
import { clickImage, findObjects, openSample, pasteTwoCoffees, screenshot, waitForEncoder } from './appHelpers';

/**
 * Text prompts and "find similar" running in the browser (Local mode): the engine worker runs the
 * COCO detector + SAM pipeline on the production build in real Chromium, no server involved.
 */

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await page.evaluate(() => indexedDB.deleteDatabase('maskwright'));
  await page.evaluate(() => localStorage.clear());
  await page.reload();
});

/** API calls other than the header's balance poll (GET /api/v1/account, made in every mode). */
function recordApiCalls(page: Page): string[] {
  const calls: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/api/') && url.pathname !== '/api/v1/account') calls.push(`${request.method()} ${url.pathname}`);
  });
  return calls;
}

const textStatus = (page: Page) => page.getByRole('form', { name: 'Text prompt' }).getByRole('status');

test('local: "cat" finds the cat in the browser, with a polygon, no API call; find similar finds no second cat', async ({ page }) => {
  const apiCalls = recordApiCalls(page);
  await openSample(page, 'Chelsea the cat');
  await waitForEncoder(page);
  await findObjects(page, 'cat');
  await expect(page.getByRole('form', { name: 'Text prompt' })).toContainText('free, no API key');

  await expect(textStatus(page)).toContainText('1 object found in this browser', { timeout: 120_000 });
  await expect(textStatus(page)).toContainText('cat: 1 found');
  const row = page.getByTestId('object-row');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('cat');
  await expect(row).toContainText('text');
  const vertices = Number((await row.textContent())!.match(/(\d+) vertices/)![1]);
  expect(vertices).toBeGreaterThanOrEqual(3);
  await screenshot(page, 'text-01-local-cat');

  // Only one cat in the picture: find similar says so and adds nothing.
  await page.getByRole('button', { name: 'Find similar to cat' }).click();
  await expect(page.getByTestId('similar-status')).toContainText('No similar objects found for “cat”', { timeout: 120_000 });
  await expect(row).toHaveCount(1);
  await screenshot(page, 'text-01b-no-similar-cat');
  expect(apiCalls).toEqual([]);
});

test('local: the detector downloads with progress on the first text prompt, once; later visits read it from the cache', async ({ page }) => {
  const detectorFetches: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.endsWith('/models/detector.onnx')) detectorFetches.push(request.url());
  });
  await openSample(page, 'Coffee cup');
  await waitForEncoder(page);
  // A slow connection, so the progress can be seen (the page and its worker share the network).
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: 1_500_000, uploadThroughput: 1_500_000 });
  await findObjects(page, 'cup');
  const progress = page.getByRole('group', { name: 'Detector download' });
  await expect(progress).toContainText(/Downloading the object detector · [\d.]+ (KB|MB) of [\d.]+ MB/);
  await screenshot(page, 'text-00-detector-download');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await expect(textStatus(page)).toContainText('cup: 1 found', { timeout: 120_000 });
  await expect(progress).toBeHidden();
  expect(detectorFetches).toHaveLength(1);

  // A second prompt reuses the loaded detector.
  await page.getByRole('form', { name: 'Text prompt' }).getByRole('textbox').fill('spoon, cup');
  await page.getByRole('form', { name: 'Text prompt' }).getByRole('button', { name: /Find objects/ }).click();
  await expect(textStatus(page)).toContainText(/cup: \d+ found/, { timeout: 120_000 });
  expect(detectorFetches).toHaveLength(1);

  // Next visit: the detector comes from the Cache API, not the network.
  await page.reload();
  await openSample(page, 'Coffee cup');
  await waitForEncoder(page);
  await findObjects(page, 'cup');
  await expect(textStatus(page)).toContainText('cup: 1 found', { timeout: 120_000 });
  expect(detectorFetches).toHaveLength(1);
});

test('local: "face" on the astronaut finds her face with the face detector, fetched only for that prompt', async ({ page }) => {
  const modelFetches: string[] = [];
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (path.includes('/models/detector')) modelFetches.push(path.slice(path.lastIndexOf('/') + 1));
  });
  await openSample(page, 'Astronaut');
  await waitForEncoder(page);
  await findObjects(page, 'face');
  await expect(textStatus(page)).toContainText('face: 1 found', { timeout: 120_000 });
  const row = page.getByTestId('object-row');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('face');
  await screenshot(page, 'text-03-local-face');
  // Only the face detector: a face prompt fetches neither COCO detector.
  expect(modelFetches).toEqual(['detector-face.onnx']);
});

test('local: "sneakers" on a tennis photo finds his two shoes with the Open Images SSD, fetched only for that prompt', async ({ page }) => {
  const modelFetches: string[] = [];
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (path.includes('/models/detector')) modelFetches.push(path.slice(path.lastIndexOf('/') + 1));
  });
  // A photo from the shared evaluation data, read at test time and pasted (never copied into the project).
  await pastePhoto(page, readFileSync(sharedPath('eval/grabcut/images/tennis.jpg')), 'tennis.jpg');
  await waitForEncoder(page);
  await findObjects(page, 'sneakers');
  await expect(textStatus(page)).toContainText(/sneakers: [2-9] found/, { timeout: 120_000 });
  await expect(page.getByTestId('object-row').first()).toContainText('footwear');
  await screenshot(page, 'text-04-local-sneakers');
  // Only the Open Images SSD: a footwear prompt fetches neither COCO detector nor the face detector.
  expect(modelFetches).toEqual(['detector-open-images.onnx']);
});

/** Pastes a photo (its file bytes) into the studio, as a user pasting from the clipboard. */
async function pastePhoto(page: Page, bytes: Buffer, name: string): Promise<void> {
  await page.evaluate(
    async ({ base64, name }) => {
      const file = new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name, { type: 'image/jpeg' });
      const data = new DataTransfer();
      data.items.add(file);
      window.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data }));
    },
    { base64: bytes.toString('base64'), name },
  );
  await expect(page.getByTestId('canvas')).toHaveAttribute('data-camera', /\d/);
}

test('local: an unknown prompt is named as unknown, a known one that is absent as not found; the known concepts can be listed', async ({ page }) => {
  await openSample(page, 'Chelsea the cat');
  await waitForEncoder(page);
  await findObjects(page, 'giraffe-striped spaceship, giraffe');
  await expect(textStatus(page)).toContainText("'giraffe-striped spaceship' is not a concept the local model knows", { timeout: 120_000 });
  await expect(textStatus(page)).toContainText('no giraffe found');
  await expect(page.getByTestId('object-row')).toHaveCount(0);

  const concepts = page.getByRole('list', { name: 'Known concepts' });
  await expect(concepts).toBeHidden();
  await page.getByRole('button', { name: 'See the concepts it knows' }).click();
  await expect(concepts).toBeVisible();
  // COCO's 80 classes, face and the Open Images SSD's three shown working, each with the detectors that find it.
  await expect(concepts.getByRole('listitem')).toHaveCount(84);
  await expect(concepts).toContainText('cat · kitten, kitty, tabby');
  await expect(concepts.getByRole('listitem').filter({ hasText: /^face/ })).toContainText('BlazeFace (faces)');
  await expect(concepts.getByRole('listitem').filter({ hasText: /^footwear/ })).toContainText('Open Images SSD (MediaPipe Objectron)');
  await screenshot(page, 'text-02-unknown-concept');

  // The list stays reachable without an unknown prompt: the disclosure closes and opens again.
  await page.getByText('Concepts the local model knows (84)').click();
  await expect(concepts).toBeHidden();
});

test('local: find similar on an accepted cup adds the other cup; one undo removes it; disabled in Remote mode', async ({ page }) => {
  await pasteTwoCoffees(page);
  await waitForEncoder(page);
  await clickImage(page, 300, 235);
  await expect(page.getByRole('radiogroup', { name: 'Mask candidates' }).getByRole('radio').first()).toBeVisible();
  await page.getByRole('button', { name: 'Accept object' }).click();
  const rows = page.getByTestId('object-row');
  await expect(rows).toHaveCount(1);

  await page.getByRole('button', { name: 'Find similar to object 1' }).click();
  await expect(page.getByTestId('similar-status')).toContainText(/\d+ similar objects? added/, { timeout: 120_000 });
  const added = Number((await page.getByTestId('similar-status').textContent())!.match(/(\d+) similar/)![1]);
  expect(added).toBeGreaterThanOrEqual(1);
  await expect(rows).toHaveCount(1 + added);
  await expect(rows.nth(1)).toContainText('object 1');
  await screenshot(page, 'text-03-find-similar');

  await page.getByRole('button', { name: 'Undo', exact: true }).click();
  await expect(rows).toHaveCount(1);
  await page.getByRole('button', { name: 'Redo', exact: true }).click();
  await expect(rows).toHaveCount(1 + added);

  await page.getByRole('radiogroup', { name: 'Inference' }).getByRole('radio', { name: 'Remote' }).check();
  const button = page.getByRole('button', { name: 'Find similar to object 1' }).first();
  await expect(button).toBeDisabled();
  await expect(button).toHaveAttribute('title', /local model only: switch to Local mode/);
  await expect(page.getByRole('region', { name: 'Objects' })).toContainText('Find similar runs on the local model only');
  await screenshot(page, 'text-04-find-similar-remote-disabled');
});
