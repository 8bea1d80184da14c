import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { clickImage, openSample, PASSWORD, screenshot, signUpAndUseNewKey, uniqueEmail } from './appHelpers';

/**
 * Remote mode against the real API server (src/server/main.ts, started by playwright.config.ts,
 * or the one at E2E_API_URL): the page and the API share one origin, as in production.
 */
const API_URL = process.env.E2E_API_URL ?? 'http://127.0.0.1:4180';
test.use({ baseURL: API_URL });

test('remote: sign up, create a key, segment, the balance goes down by one', async ({ page }) => {
  await signUpAndUseNewKey(page, 'segment');
  await openSample(page, 'Coffee cup');
  await clickImage(page, 300, 235);

  // Nothing is spent until the user presses the button that states the cost.
  const segment = page.getByRole('button', { name: /Segment · 1 credit · balance 5/ });
  await expect(segment).toBeVisible();
  await screenshot(page, 'remote-segment-03-cost-shown');
  await segment.click();

  await expect(page.getByRole('radiogroup', { name: 'Mask candidates' }).getByRole('radio').first()).toBeVisible({ timeout: 120_000 });
  await expect(page.getByTestId('receipt')).toContainText(/Request \S+/);
  await expect(page.getByTestId('receipt')).toContainText('charged 1 credit');
  await expect(page.getByTestId('balance')).toContainText('4 credits');
  await screenshot(page, 'remote-segment-04-result');

  await page.getByRole('button', { name: 'Accept object' }).click();
  await expect(page.getByTestId('object-row')).toContainText('remote');

  // Text prompts run on the server (POST /api/v1/segment); the cost is on the button as well.
  await page.getByRole('button', { name: 'Text prompt', exact: true }).click();
  await page.getByLabel(/What to find/).fill('cup');
  await page.getByRole('button', { name: /Find objects · 1 credit · balance 4/ }).click();
  await expect(page.getByRole('form', { name: 'Text prompt' }).getByRole('status')).toContainText(/found( · \d+ not added: [^·]+)? · request \S+/, { timeout: 120_000 });
  await screenshot(page, 'remote-segment-05-text');
});

test('remote: when the credits run out the studio says 402 and what to do', async ({ page, request }) => {
  const key = await signUpAndUseNewKey(page, 'broke');
  // Spend four of the five free credits directly on the API (a real client), each with its own key.
  const image = `data:image/png;base64,${readFileSync('public/samples/coffee.png').toString('base64')}`;
  for (let spent = 0; spent < 4; ) {
    const response = await request.post('/api/v1/pvs', {
      headers: { Authorization: `Bearer ${key}`, 'Idempotency-Key': `e2e-burn-${Date.now()}-${spent}` },
      data: { image, points: [{ x: 100 + spent * 40, y: 200 }], multimaskOutput: false },
      timeout: 120_000,
    });
    if (response.status() === 429) {
      await new Promise((r) => setTimeout(r, 1000));
      continue;
    }
    expect(response.status()).toBe(200);
    spent++;
  }

  await page.reload(); // fresh balance
  await expect(page.getByTestId('balance')).toContainText('1 credit');
  await openSample(page, 'Coffee cup');
  await clickImage(page, 300, 235);
  await page.getByRole('button', { name: /Segment · 1 credit · balance 1/ }).click();
  await expect(page.getByTestId('receipt')).toContainText('charged 1 credit', { timeout: 120_000 });
  await expect(page.getByTestId('balance')).toContainText('0 credits');

  await page.keyboard.press('Escape');
  await clickImage(page, 380, 280);
  await page.getByRole('button', { name: /Segment · 1 credit · balance 0/ }).click();
  await expect(page.getByText(/Out of credits: nothing was charged\. Buy a credit package/)).toBeVisible();
  await screenshot(page, 'remote-broke-03-402');

  // The purchase flow (the server runs in demo payment mode here): balance goes up by the package.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Credits' }).click();
  await expect(page.getByRole('group', { name: 'Lite' })).toContainText('$19.90');
  await expect(page.getByRole('group', { name: 'Standard' })).toContainText('$29.99');
  await expect(page.getByRole('group', { name: 'Pro' })).toContainText('$79.99');
  // Demo mode says so before the click, and asks before it adds anything.
  await expect(page.getByTestId('demo-notice')).toContainText('Demo — no money moves');
  let question = '';
  page.once('dialog', (dialog) => {
    question = dialog.message();
    void dialog.accept();
  });
  await page.getByRole('button', { name: 'Buy Lite' }).click();
  await expect(page.getByRole('status')).toContainText('Added 300 credits');
  expect(question).toContain('no money moves');
  await expect(page.getByTestId('balance')).toContainText('300 credits');
  await screenshot(page, 'remote-broke-04-credits');
});

test('remote: a large image is scaled for upload and the polygon comes back in original pixels', async ({ page }) => {
  await signUpAndUseNewKey(page, 'large');
  // 1800×1200: above the recommended 1024 px, so the studio uploads a 1024×683 copy.
  const large = await sharp('public/samples/coffee.png').resize(1800, 1200).png().toBuffer();
  await page.getByLabel('Open image').setInputFiles({ name: 'coffee-large.png', mimeType: 'image/png', buffer: large });
  await expect(page.getByTestId('canvas')).toHaveAttribute('data-camera', /\d/);
  await clickImage(page, 900, 705); // the cup, at 3× the coordinates used on the 600 px original
  await page.getByRole('button', { name: /Segment · 1 credit/ }).click();
  await expect(page.getByTestId('receipt')).toContainText('charged 1 credit', { timeout: 120_000 });
  await page.getByRole('button', { name: 'Accept object' }).click();

  await page.getByRole('button', { name: 'Export', exact: true }).click();
  const downloadPromise = page.waitForEvent('download');
  await page.getByRole('button', { name: 'COCO JSON (whole session)' }).click();
  const coco = JSON.parse(readFileSync((await (await downloadPromise).path())!, 'utf8'));
  expect(coco.images[0]).toMatchObject({ width: 1800, height: 1200 });
  const [x, y, w, h] = coco.annotations[0].bbox as number[];
  // The cup (with saucer) spans most of the photo: in original pixels that is far beyond 1024.
  expect(x + w).toBeGreaterThan(1100);
  expect(y + h).toBeGreaterThan(900);
  expect(x + w).toBeLessThanOrEqual(1800);
  expect(y + h).toBeLessThanOrEqual(1200);
  await screenshot(page, 'remote-large-01-scaled-back');
});

test('account: API keys rotate and revoke, log out', async ({ page }) => {
  const first = await signUpAndUseNewKey(page, 'keys');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
  const rows = page.getByRole('row').filter({ hasText: 'never' });
  await expect(rows).toHaveCount(1);
  await expect(rows).toContainText('used in this browser');

  await page.getByRole('button', { name: /^Rotate / }).click();
  const rotated = (await page.getByTestId('new-api-key').textContent())!.trim();
  expect(rotated).not.toBe(first);
  await expect(page.getByText('It is shown only once')).toBeVisible();
  // The browser was using the rotated key, so it switched to the new one.
  await expect(page.getByRole('button', { name: 'Used in this browser' })).toBeDisabled();
  await expect(rows).toContainText('used in this browser');
  // The rotated-out key no longer works.
  expect((await page.request.get('/api/v1/account', { headers: { Authorization: `Bearer ${first}` } })).status()).toBe(401);
  expect((await page.request.get('/api/v1/account', { headers: { Authorization: `Bearer ${rotated}` } })).status()).toBe(200);

  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: /^Revoke / }).first().click();
  await expect(page.getByText('No keys yet.')).toBeVisible();
  await expect(page.getByTestId('new-api-key')).toHaveCount(0);
  expect((await page.request.get('/api/v1/account', { headers: { Authorization: `Bearer ${rotated}` } })).status()).toBe(401);
  await screenshot(page, 'remote-keys-03-revoked');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
  await page.getByRole('button', { name: 'Log out' }).click();
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Log in' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Sign up' })).toBeVisible();
});

async function logOut(page: Page, keepKey: boolean): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
  if (keepKey) await page.getByRole('checkbox', { name: /Keep the API key/ }).check();
  await page.getByRole('button', { name: 'Log out' }).click();
  await expect(page.getByRole('button', { name: 'Sign up' })).toBeVisible();
}

test('who pays: logging out forgets the key and the header forgets the account', async ({ page }) => {
  const key = await signUpAndUseNewKey(page, 'leaver');
  const email = await page.getByTestId('balance').textContent();
  await logOut(page, false);
  await expect(page.getByTestId('balance')).toContainText('Not signed in');
  await expect(page.getByTestId('balance')).not.toContainText(email!.split('·')[1]!.trim());
  expect(await page.evaluate(() => localStorage.getItem('maskwright.remote'))).not.toContain(key);
});

test('who pays: a key of another account is flagged, shown as the payer, and spends nothing until the person chooses', async ({ page, request }) => {
  const keyOfA = await signUpAndUseNewKey(page, 'payer-a');
  const balanceOf = async (key: string) =>
    ((await (await request.get('/api/v1/account', { headers: { Authorization: `Bearer ${key}` } })).json()) as { credits: number; email: string });
  const a = await balanceOf(keyOfA);
  await logOut(page, true);

  // B signs up in the same browser, where A's key is still stored (kept on purpose above).
  const emailOfB = uniqueEmail('payer-b');
  await page.getByLabel('Email').fill(emailOfB);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign up' }).click();
  const warning = page.getByTestId('key-owner-warning');
  await expect(warning).toContainText(`belongs to ${a.email}, not to ${emailOfB}`);
  // The header shows the account that would pay: A's, not B's.
  await expect(page.getByTestId('balance')).toContainText(a.email);
  // The warning is a bar across the page under the header, which keeps its one row.
  const viewport = page.viewportSize()!;
  expect((await warning.boundingBox())!.width).toBeGreaterThan(viewport.width * 0.9);
  expect((await page.locator('.app-header').boundingBox())!.height).toBeLessThan(80);
  await screenshot(page, 'remote-payer-01-foreign-key');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Studio' }).click();
  await openSample(page, 'Coffee cup');
  await clickImage(page, 300, 235);
  await page.getByRole('button', { name: /Segment · 1 credit/ }).click();
  await expect(page.getByText(/remote requests would spend .* credits\. Choose "Use it anyway" or "Forget this key"/)).toBeVisible();
  expect((await balanceOf(keyOfA)).credits).toBe(a.credits);
  await screenshot(page, 'remote-payer-02-refused');

  await warning.getByRole('button', { name: 'Forget this key' }).click();
  await expect(warning).toHaveCount(0);
  await expect(page.getByTestId('balance')).toContainText(emailOfB);
  await expect(page.getByTestId('balance')).toContainText('5 credits');
  expect((await balanceOf(keyOfA)).credits).toBe(a.credits);
});
