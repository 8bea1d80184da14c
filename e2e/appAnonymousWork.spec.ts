import { expect, test, type Browser, type Page } from '@playwright/test';
import { API_URL, brushObject, objectRows, openSample, PASSWORD, storedSessionEntry, uniqueEmail } from './appHelpers';

/**
 * Issue 38, item 7: someone labels a photo without an account, then signs up. The account's studio
 * starts empty, but says where the earlier work is and brings it into the account as a project.
 */
/** Where the anonymous space keeps its document (persistence/session.ts: plain, unprefixed). */
const ANONYMOUS_DOCUMENT = 'document-v1';

/** Someone labels a photo without an account, then signs up and goes back to the studio. */
async function labelledThenSignedUp(browser: Browser): Promise<Page> {
  const page = await (await browser.newContext({ baseURL: API_URL })).newPage();
  await page.goto('/');
  await openSample(page, 'Chelsea the cat');
  await brushObject(page, 120, 100);
  await expect(await objectRows(page)).toHaveCount(1);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Log in' }).click();
  await page.getByLabel('Email').fill(uniqueEmail('anon'));
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await expect(page.getByTestId('balance')).toContainText('credits');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Studio' }).click();
  return page;
}

async function logOutToStudio(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
  await page.getByRole('button', { name: 'Log out' }).click();
  await expect(page.getByTestId('balance')).toContainText('Not signed in');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Studio' }).click();
}

test('after signing up, work done before is named, and brought into the account as a project', async ({ browser }) => {
  const page = await labelledThenSignedUp(browser);

  const panel = page.getByRole('region', { name: 'Project' });
  const offer = panel.getByTestId('anonymous-work');
  await expect(offer).toContainText('1 photo and 1 object you worked on before signing in are kept in this browser, outside this account');
  await offer.getByLabel('Name of the project for the work from before signing in').fill('Before');
  await offer.getByRole('button', { name: 'Bring it into this account' }).click();
  await expect(panel.getByTestId('project-name')).toHaveText('Before');
  await expect(page.locator('.thumb[aria-current="true"]')).toContainText('chelsea.png');
  await expect(await objectRows(page)).toHaveCount(1);
  await expect(panel.getByTestId('sync-state')).toHaveText('Up to date');
  await expect(offer).toHaveText('Your work from before signing in is now the project Before.');
  const { projects } = (await (await page.request.get('/api/v1/projects')).json()) as { projects: Array<{ name: string; imageCount: number }> };
  expect(projects).toEqual([expect.objectContaining({ name: 'Before', imageCount: 1 })]);

  // Brought in, the work is in the account only: the anonymous copy is gone, and logged out the studio is empty.
  expect(await storedSessionEntry(page, ANONYMOUS_DOCUMENT)).toBeNull();
  await logOutToStudio(page);
  await expect(page.getByRole('heading', { name: 'Segment anything in your photos' })).toBeVisible();
  await expect(page.locator('.thumb').filter({ hasText: 'chelsea.png' })).toHaveCount(0);
});

test('when the work cannot be brought in, the copy from before signing in stays in this browser', async ({ browser }) => {
  const page = await labelledThenSignedUp(browser);
  // The photos cannot reach the server: the project is made, its upload fails.
  await page.route('**/api/v1/projects/*/images', (route) => (route.request().method() === 'POST' ? route.abort() : route.continue()));
  const offer = page.getByRole('region', { name: 'Project' }).getByTestId('anonymous-work');
  await offer.getByRole('button', { name: 'Bring it into this account' }).click();
  await expect(offer.getByRole('alert')).toContainText('Your work from before signing in is still kept in this browser: bring it in again to finish');

  expect(await storedSessionEntry(page, ANONYMOUS_DOCUMENT)).not.toBeNull();
  await logOutToStudio(page);
  await expect(page.locator('.thumb[aria-current="true"]')).toContainText('chelsea.png');
  await expect(await objectRows(page)).toHaveCount(1);
});

test('a bring-in that failed, tried again, fills the project the first try made: never a second project', async ({ browser }) => {
  const page = await labelledThenSignedUp(browser);
  const blockUploads = '**/api/v1/projects/*/images';
  await page.route(blockUploads, (route) => (route.request().method() === 'POST' ? route.abort() : route.continue()));
  const panel = page.getByRole('region', { name: 'Project' });
  const offer = panel.getByTestId('anonymous-work');
  await offer.getByLabel('Name of the project for the work from before signing in').fill('Before');
  await offer.getByRole('button', { name: 'Bring it into this account' }).click();
  await expect(offer.getByRole('alert')).toContainText('Your work from before signing in is still kept in this browser: bring it in again to finish');

  await page.unroute(blockUploads);
  // The failed try left the work on screen, so the studio asks before replacing it: yes.
  page.once('dialog', (dialog) => void dialog.accept());
  await offer.getByRole('button', { name: 'Bring it into this account' }).click();
  await expect(offer).toHaveText('Your work from before signing in is now the project Before.');
  await expect(panel.getByTestId('sync-state')).toHaveText('Up to date');
  const { projects } = (await (await page.request.get('/api/v1/projects')).json()) as { projects: Array<{ name: string; imageCount: number }> };
  expect(projects).toEqual([expect.objectContaining({ name: 'Before', imageCount: 1 })]);
  expect(await storedSessionEntry(page, ANONYMOUS_DOCUMENT)).toBeNull();
});
