import { expect, type Browser, type Page } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SAMPLES } from '../src/app/images/imageLibrary';

export const SCREENSHOT_DIR = path.join('test-results', 'screenshots');

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
}

/** A fresh studio: no saved session, no preferences. */
export async function startFresh(page: Page): Promise<void> {
  await page.goto('/');
  await page.evaluate(() => indexedDB.deleteDatabase('maskwright'));
  await page.evaluate(() => localStorage.clear());
  await page.reload();
}

/** The canvas publishes its camera (scale, x, y) so tests can click at image-pixel coordinates. */
export async function imageToPage(page: Page, x: number, y: number): Promise<{ x: number; y: number }> {
  const host = page.getByTestId('canvas');
  await expect(host).toHaveAttribute('data-camera', /\d/);
  const box = await host.boundingBox();
  const camera = (await host.getAttribute('data-camera'))!.split(',').map(Number);
  if (!box) throw new Error('canvas not visible');
  return { x: box.x + x * camera[0] + camera[1], y: box.y + y * camera[0] + camera[2] };
}

export async function clickImage(page: Page, x: number, y: number, button: 'left' | 'right' = 'left'): Promise<void> {
  const at = await imageToPage(page, x, y);
  await page.mouse.click(at.x, at.y, { button });
}

/** A mouse drag through image-pixel points (a brush stroke, a vertex drag). */
export async function stroke(page: Page, points: ReadonlyArray<readonly [number, number]>): Promise<void> {
  const start = await imageToPage(page, points[0][0], points[0][1]);
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  for (const [x, y] of points.slice(1)) {
    const to = await imageToPage(page, x, y);
    await page.mouse.move(to.x, to.y, { steps: 10 });
  }
  await page.mouse.up();
}

export async function openSample(page: Page, title: (typeof SAMPLES)[number]['title']): Promise<void> {
  await page.getByRole('button', { name: `Sample: ${title}` }).click();
  // The sample loads asynchronously: the photo shown before it already has a camera, so wait for this one to be current.
  const file = SAMPLES.find((s) => s.title === title)!.file;
  await expect(page.locator('.thumb[aria-current="true"]')).toContainText(file);
  await expect(page.getByTestId('canvas')).toHaveAttribute('data-camera', /\d/);
}

/** Local mode: the model is downloaded, started, and the open image embedded. */
export async function waitForEncoder(page: Page): Promise<void> {
  await expect(page.getByTestId('engine-phase')).toContainText('Ready', { timeout: 150_000 });
}

export async function objectRows(page: Page) {
  return page.getByTestId('object-row');
}

export const PASSWORD = 'correct horse battery';
export const uniqueEmail = (tag: string) => `studio-${tag}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;

/**
 * Signs up in the studio, creates an API key, uses it in this browser and picks the inference
 * choice that pays with it; ends on the studio page. Returns the key.
 */
export async function signUpAndUseNewKey(page: Page, tag: string, choice: 'Remote' | 'Server start' = 'Remote'): Promise<string> {
  await page.goto('/#/account');
  await page.evaluate(() => localStorage.clear());
  await page.getByLabel('Email').fill(uniqueEmail(tag));
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await expect(page.getByTestId('balance')).toContainText('5 credits');
  await screenshot(page, `remote-${tag}-01-signed-up`);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
  await page.getByRole('button', { name: 'Generate API key' }).click();
  const key = (await page.getByTestId('new-api-key').textContent())!.trim();
  expect(key.length).toBeGreaterThan(16);
  await expect(page.getByRole('button', { name: 'Copy' })).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: key.slice(0, 8) })).toHaveCount(1);
  await screenshot(page, `remote-${tag}-02-key-created`);
  await page.getByRole('button', { name: 'Use in this browser' }).click();
  await expect(page.getByRole('button', { name: 'Used in this browser' })).toBeDisabled();

  await page.getByRole('radiogroup', { name: 'Inference' }).getByRole('radio', { name: choice }).check();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Studio' }).click();
  return key;
}

/** Runs a text prompt from the Text prompt panel. */
export async function findObjects(page: Page, prompts: string): Promise<void> {
  await page.getByRole('button', { name: 'Text prompt', exact: true }).click();
  const form = page.getByRole('form', { name: 'Text prompt' });
  await form.getByRole('textbox').fill(prompts);
  await form.getByRole('button', { name: /Find objects/ }).click();
}

/** Pastes a picture made of the coffee sample twice, side by side: two cups for "find similar". */
export async function pasteTwoCoffees(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const bitmap = await createImageBitmap(await (await fetch('/samples/coffee.png')).blob());
    const canvas = new OffscreenCanvas(bitmap.width * 2, bitmap.height);
    const context = canvas.getContext('2d')!;
    context.drawImage(bitmap, 0, 0);
    context.drawImage(bitmap, bitmap.width, 0);
    const data = new DataTransfer();
    data.items.add(new File([await canvas.convertToBlob({ type: 'image/png' })], 'two-coffees.png', { type: 'image/png' }));
    window.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data }));
  });
  await expect(page.getByTestId('canvas')).toHaveAttribute('data-camera', /\d/);
}

/** The Export or Import menu, opened if it is not. */
export async function openMenu(page: Page, name: 'Export' | 'Import') {
  const dialog = page.getByRole('dialog', { name });
  if (!(await dialog.isVisible())) await page.getByRole('button', { name, exact: true }).click();
  return dialog;
}

/** Clicks an entry of the Export menu and returns the downloaded file. */
export async function download(page: Page, button: string): Promise<Buffer> {
  const dialog = await openMenu(page, 'Export');
  const pending = page.waitForEvent('download');
  await dialog.getByRole('button', { name: button }).click();
  const file = await pending;
  return readFileSync((await file.path())!);
}

/** The real API server, which serves the studio on its own origin (playwright.config.ts). */
export const API_URL = process.env.E2E_API_URL ?? 'http://127.0.0.1:4180';

/** A new person on a machine of their own (a fresh browser context): signed up, on the studio page. */
export async function personSignedUp(browser: Browser, tag: string): Promise<{ page: Page; email: string }> {
  const context = await browser.newContext({ baseURL: API_URL });
  const page = await context.newPage();
  const email = uniqueEmail(tag);
  await page.goto('/#/account');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await expect(page.getByTestId('balance')).toContainText(email);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Studio' }).click();
  return { page, email };
}

/** Paints one round object (nothing selected: the brush makes a new one). */
export async function brushObject(page: Page, x: number, y: number): Promise<void> {
  await page.getByRole('button', { name: 'Brush', exact: true }).click();
  await page.keyboard.press('Escape');
  await page.getByRole('slider', { name: 'Brush size' }).fill('40');
  await stroke(page, [
    [x, y],
    [x + 1, y],
  ]);
}

/** An entry of the studio's local session store (persistence/session.ts), as JSON; null when absent. */
export async function storedSessionEntry(page: Page, key: string): Promise<unknown> {
  const stored = await page.evaluate(
    (entry) =>
      new Promise<string>((done, fail) => {
        const open = indexedDB.open('maskwright');
        open.onerror = () => fail(open.error);
        open.onsuccess = () => {
          const get = open.result.transaction('session').objectStore('session').get(entry);
          get.onsuccess = () => {
            open.result.close();
            done(JSON.stringify(get.result ?? null));
          };
          get.onerror = () => fail(get.error);
        };
      }),
    key,
  );
  return JSON.parse(stored) as unknown;
}

/** The project's id and photos as the server lists them, read with the page's session. */
export async function serverProject(page: Page, projectName: string): Promise<{ base: string; imageId: (file: string) => string }> {
  const { projects } = (await (await page.request.get('/api/v1/projects')).json()) as { projects: Array<{ id: string; name: string }> };
  const base = `/api/v1/projects/${projects.find((p) => p.name === projectName)!.id}`;
  const { images } = (await (await page.request.get(`${base}/images`)).json()) as { images: Array<{ id: string; name: string }> };
  return { base, imageId: (file) => images.find((i) => i.name === file)!.id };
}

/** Removes a photo from the project as the page's signed-in person (the session cookie and its CSRF echo); the response status. */
export async function removeProjectImage(page: Page, base: string, imageId: string): Promise<number> {
  const csrf = (await page.context().cookies()).find((c) => c.name === 'mw_csrf')!.value;
  return (await page.request.delete(`${base}/images/${imageId}`, { headers: { 'x-csrf-token': csrf } })).status();
}
