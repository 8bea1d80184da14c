import { expect, test, type Page } from '@playwright/test';
import { openSample, PASSWORD, screenshot, uniqueEmail } from './appHelpers';

/**
 * A shared browser (issue 28): sign-up and log-in show the account as soon as the server answers;
 * each account's work is its own, sealed in this browser, and logging out leaves the next person
 * nothing to see or read. Against the real API server, which serves the studio on its origin.
 */
const API_URL = process.env.E2E_API_URL ?? 'http://127.0.0.1:4180';
test.use({ baseURL: API_URL });

/** Submits the account form and returns how long the header took to name the account after the server's answer. */
async function submitAndTimeHeader(page: Page, email: string, button: 'Sign up' | 'Log in'): Promise<number> {
  const path = button === 'Sign up' ? '/api/v1/auth/signup' : '/api/v1/auth/login';
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  const answered = page.waitForResponse((r) => r.url().endsWith(path) && r.request().method() === 'POST');
  await page.getByRole('button', { name: button }).click();
  const response = await answered;
  expect(response.status()).toBe(button === 'Sign up' ? 201 : 200);
  const at = Date.now();
  await expect(page.getByTestId('balance')).toContainText(email, { timeout: 1_000 });
  return Date.now() - at;
}

async function logOut(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
  await page.getByRole('button', { name: 'Log out' }).click();
  await expect(page.getByRole('button', { name: 'Sign up' })).toBeVisible();
  await expect(page.getByTestId('balance')).toContainText('Not signed in');
}

async function toStudio(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Studio' }).click();
}

/** Everything this origin keeps in IndexedDB, described as text the test can search. */
function browserStorage(page: Page) {
  return page.evaluate(async () => {
    const read = (dbName: string, storeName: string) =>
      new Promise<Array<{ key: string; kind: string; text: string }>>((resolve, reject) => {
        const open = indexedDB.open(dbName);
        open.onupgradeneeded = () => open.result.createObjectStore(storeName);
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains(storeName)) {
            db.close();
            return resolve([]);
          }
          const rows: Array<{ key: string; kind: string; text: string }> = [];
          const cursor = db.transaction(storeName).objectStore(storeName).openCursor();
          cursor.onsuccess = () => {
            const c = cursor.result;
            if (!c) {
              db.close();
              return resolve(rows);
            }
            const value = c.value as unknown;
            const kind =
              value instanceof Blob ? 'blob' : value instanceof CryptoKey ? 'key' : typeof value !== 'object' || value === null ? 'plain' : 'iv' in value ? 'sealed' : 'sealed' in value ? 'sealed-image' : 'plain';
            let text = '';
            try {
              text = JSON.stringify(value);
            } catch {
              text = '';
            }
            rows.push({ key: String(c.key), kind, text });
            c.continue();
          };
        };
      });
    return { session: await read('maskwright', 'session'), keys: await read('maskwright-space-keys', 'keys'), embeddings: await read('maskwright-embeddings', 'embeddings') };
  });
}

test('a shared browser: the account shows at once, and the next person finds nothing of the previous one', async ({ page }) => {
  await page.goto('/#/account');
  await page.evaluate(() => localStorage.clear());
  const alice = uniqueEmail('alice');
  expect(await submitAndTimeHeader(page, alice, 'Sign up')).toBeLessThan(1_000);
  await expect(page.getByRole('button', { name: 'Log out' })).toBeVisible();

  await toStudio(page);
  await openSample(page, 'Coffee cup');
  await openSample(page, 'Chelsea the cat');
  await expect(page.locator('.thumb-name')).toHaveCount(2);
  // Alice's space is sealed: no image or document in clear under her space's names.
  await expect.poll(async () => (await browserStorage(page)).session.filter((r) => r.key.startsWith('account-') && r.key.endsWith('document-v1')).length).toBe(1);
  const sealed = (await browserStorage(page)).session.filter((r) => r.key.startsWith('account-'));
  expect(sealed.length).toBe(3);
  expect(sealed.every((r) => r.kind !== 'blob' && r.kind !== 'plain' && !r.text.includes('coffee.png'))).toBe(true);
  await screenshot(page, 'privacy-01-alice');

  await logOut(page);
  await toStudio(page);
  await expect(page.locator('.thumb-name')).toHaveCount(0);
  const afterLogout = await browserStorage(page);
  expect(afterLogout.keys).toEqual([]);
  expect(afterLogout.embeddings).toEqual([]);
  // What stays on disk of Alice is ciphertext whose key is gone; nothing plain names her photos.
  expect(afterLogout.session.filter((r) => !r.key.startsWith('account-')).some((r) => r.text.includes('coffee.png') || r.text.includes('chelsea.png'))).toBe(false);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Log in' }).click();
  const bob = uniqueEmail('bob');
  expect(await submitAndTimeHeader(page, bob, 'Sign up')).toBeLessThan(1_000);
  await expect(page.getByTestId('balance')).not.toContainText(alice);
  await toStudio(page);
  await expect(page.locator('.thumb-name')).toHaveCount(0);
  await expect(page.getByText('coffee.png')).toHaveCount(0);
  // Bob's page can read no key that opens Alice's entries: the only key kept is his own space's.
  const bobs = await browserStorage(page);
  expect(bobs.keys.filter((r) => r.kind === 'key').length).toBe(1);
  const bobSpace = bobs.keys.find((r) => r.key === 'current')!.text;
  expect(sealed.some((r) => r.key.startsWith(JSON.parse(bobSpace) as string))).toBe(false);
  await screenshot(page, 'privacy-02-bob');

  // Alice loses nothing by logging out: her own password opens her work again.
  await logOut(page);
  await page.getByRole('tab', { name: 'I have an account' }).click();
  expect(await submitAndTimeHeader(page, alice, 'Log in')).toBeLessThan(1_000);
  await toStudio(page);
  await expect(page.locator('.thumb-name')).toHaveCount(2);
  await expect(page.locator('.thumb-name').first()).toContainText('coffee.png');
});
