import { expect, test } from '@playwright/test';
import { brushObject, objectRows, openSample, personSignedUp, removeProjectImage, screenshot, serverProject } from './appHelpers';

/**
 * A photo removed from the project (here through the API, as another member's tab would) while this
 * studio holds an edit on it the server never got: the studio keeps it, says who removed it, and its
 * Add back button puts it into the project again with both objects, as one photo written once.
 * The studio's annotation writes are refused by the network while the edit is made, so the edit is
 * still unsaved when the removal arrives; everything else is the real server.
 */
test('a removed photo with my unsaved edit can be added back to the project, once, with the edit', async ({ browser }) => {
  const alice = await personSignedUp(browser, 'addback');
  const page = alice.page;
  const panel = page.getByRole('region', { name: 'Project' });
  const name = `Add back ${Date.now()}`;
  await openSample(page, 'Chelsea the cat');
  await brushObject(page, 60, 260);
  await expect(await objectRows(page)).toHaveCount(1);
  await panel.getByLabel('Project name').fill(name);
  await panel.getByRole('button', { name: 'Save session as project' }).click();
  await expect(panel.getByTestId('sync-state')).toHaveText('Up to date');

  const writes = '**/api/v1/projects/*/images/*/annotations';
  let refused = 0;
  await page.route(writes, (route) => (route.request().method() === 'PUT' ? (refused++, route.abort()) : route.continue()));
  await brushObject(page, 300, 80);
  await expect(await objectRows(page)).toHaveCount(2);
  await expect.poll(() => refused).toBeGreaterThan(0);

  const { base, imageId } = await serverProject(page, name);
  expect(await removeProjectImage(page, base, imageId('chelsea.png'))).toBe(204);
  const kept = panel.getByTestId('kept-photo');
  await expect(kept).toContainText(`${alice.email} removed chelsea.png`);
  await expect(page.getByRole('alert').filter({ hasText: 'Add back' })).toBeVisible();
  await expect(page.locator('.thumb').filter({ hasText: 'chelsea.png' })).toBeVisible();
  await screenshot(page, 'addback-01-kept-outside');

  await page.unroute(writes);
  await kept.getByRole('button', { name: 'Add back chelsea.png' }).click();
  await expect(kept).toHaveCount(0);
  await expect(panel.getByTestId('sync-state')).toHaveText('Up to date');
  const { images } = (await (await page.request.get(`${base}/images`)).json()) as { images: Array<{ id: string; name: string }> };
  expect(images.map((i) => i.name)).toEqual(['chelsea.png']);
  const stored = (await (await page.request.get(`${base}/images/${images[0].id}/annotations`)).json()) as { revision: number; objects: unknown[] };
  expect(stored.objects).toHaveLength(2);
  expect(stored.revision).toBe(1);
  await expect(await objectRows(page)).toHaveCount(2);
});
