import { expect, test } from '@playwright/test';
import { API_URL, brushObject, objectRows, openSample, PASSWORD, uniqueEmail } from './appHelpers';

/**
 * Issue 38, item 7: someone labels a photo without an account, then signs up. The account's studio
 * starts empty, but says where the earlier work is and brings it into the account as a project.
 */
test('after signing up, work done before is named, and brought into the account as a project', async ({ browser }) => {
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
});
