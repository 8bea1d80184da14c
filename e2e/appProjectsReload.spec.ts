import { expect, test, type Page } from '@playwright/test';
import { brushObject, objectRows, openSample, PASSWORD, personSignedUp, screenshot } from './appHelpers';

/**
 * The open project is in the page's address: Alice reloads and is back in the same project with its
 * photo and objects, syncing; the link opens it in a fresh browser of hers too. Bob, another
 * account, opening the same link is told the project is not available to him and sees none of it.
 * On the way, the image list shows thumbnails, never the full photos: a small one made in the
 * browser for a local photo, the server's for a project photo.
 */

/** The natural size and address of the list's picture of the photo named `name`. */
async function listPicture(page: Page, name: string): Promise<{ src: string; width: number; height: number }> {
  const picture = page.locator('.image-strip .thumb', { has: page.locator('.thumb-name', { hasText: name }) }).locator('img');
  await expect(picture).toHaveJSProperty('complete', true);
  await expect.poll(() => picture.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  return picture.evaluate((img: HTMLImageElement) => ({ src: img.currentSrc, width: img.naturalWidth, height: img.naturalHeight }));
}

test('a reload reopens the project named in the address; the same link is not available to another account', async ({ browser }) => {
  const alice = await personSignedUp(browser, 'alice-reload');
  const name = `Reload ${Date.now()}`;
  const panel = alice.page.getByRole('region', { name: 'Project' });

  await openSample(alice.page, 'Chelsea the cat'); // 451 × 300
  await brushObject(alice.page, 120, 100);
  await brushObject(alice.page, 320, 200);
  await expect(await objectRows(alice.page)).toHaveCount(2);
  const local = await listPicture(alice.page, 'chelsea.png');
  expect(local.src).toMatch(/^blob:/);
  expect([local.width, local.height]).toEqual([128, 85]);

  await expect(alice.page).not.toHaveURL(/[?&]project=/);
  await panel.getByLabel('Project name').fill(name);
  await panel.getByRole('button', { name: 'Save session as project' }).click();
  await expect(panel.getByTestId('project-name')).toHaveText(name);
  await expect(panel.getByTestId('sync-state')).toHaveText('Up to date');
  await expect(alice.page).toHaveURL(/\?project=[^&#]+#\//);
  const link = alice.page.url();

  await alice.page.reload();
  await expect(panel.getByTestId('project-name')).toHaveText(name);
  await expect(panel.getByTestId('sync-state')).toHaveText('Up to date');
  await expect(alice.page.locator('.thumb[aria-current="true"]')).toContainText('chelsea.png');
  await expect(await objectRows(alice.page)).toHaveCount(2);
  expect(alice.page.url()).toBe(link);
  const server = await listPicture(alice.page, 'chelsea.png');
  expect(server.src).toMatch(/\/api\/v1\/projects\/[^/]+\/images\/[^/]+\/thumbnail$/);
  expect([server.width, server.height]).toEqual([128, 85]);
  await screenshot(alice.page, 'projects-reload-01-reopened');

  // The link on another machine of hers (no local copy): the project from the server.
  const elsewhere = await (await browser.newContext({ baseURL: new URL(link).origin })).newPage();
  await elsewhere.goto('/#/account');
  await elsewhere.getByRole('tab', { name: 'I have an account' }).click();
  await elsewhere.getByLabel('Email').fill(alice.email);
  await elsewhere.getByLabel('Password').fill(PASSWORD);
  await elsewhere.getByRole('button', { name: 'Log in', exact: true }).click();
  await expect(elsewhere.getByTestId('balance')).toContainText(alice.email);
  await elsewhere.goto(link);
  await expect(elsewhere.getByRole('region', { name: 'Project' }).getByTestId('project-name')).toHaveText(name);
  await expect(await objectRows(elsewhere)).toHaveCount(2);

  // Bob, signed in, opens the same link: told it is not his to see, shown nothing of it.
  const bob = await personSignedUp(browser, 'bob-reload');
  await bob.page.goto(link);
  await expect(bob.page.getByRole('alert')).toContainText('This project is not available to you');
  await expect(bob.page).not.toHaveURL(/[?&]project=/);
  await expect(bob.page.getByRole('region', { name: 'Project' }).getByTestId('project-name')).toHaveCount(0);
  await expect(bob.page.locator('.image-strip .thumb-name')).toHaveCount(0);
  await expect(await objectRows(bob.page)).toHaveCount(0);
  await screenshot(bob.page, 'projects-reload-02-not-available');
});
