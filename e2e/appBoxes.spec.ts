import { expect, test, type Page } from '@playwright/test';
import { download, openSample, stroke, waitForEncoder } from './appHelpers';

/**
 * Box annotations (issue 36): drawn with the box tool, resized by a handle, undone through the one
 * history, and exported to COCO as a bbox without segmentation. Production build, real Chromium.
 */

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await page.evaluate(() => indexedDB.deleteDatabase('maskwright'));
  await page.evaluate(() => localStorage.clear());
  await page.reload();
});

const rows = (page: Page) => page.getByTestId('object-row');
const boxOf = async (page: Page) => (await rows(page).first().getAttribute('data-box'))!.split(',').map(Number);
const near = (actual: number[], expected: number[], within = 1.5) => actual.length === expected.length && actual.every((v, i) => Math.abs(v - expected[i]) <= within);

type CocoBoxes = { annotations: Array<{ segmentation: unknown[]; bbox: number[]; area: number; category_id: number }> };

test('draw a box corner to corner, resize it by its corner handle, undo, export COCO with its bbox', async ({ page }) => {
  await openSample(page, 'Coffee cup');
  await page.keyboard.press('o');
  await expect(page.getByRole('button', { name: 'Box annotation', exact: true })).toHaveAttribute('aria-pressed', 'true');

  await stroke(page, [
    [100, 100],
    [200, 180],
  ]);
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toHaveAttribute('data-kind', 'box');
  expect(near(await boxOf(page), [100, 100, 100, 80])).toBe(true);
  // The new box is selected, so its handles show.
  const objectId = await rows(page).first().getAttribute('data-object-id');
  await expect(page.getByTestId('canvas')).toHaveAttribute('data-selection', objectId!);

  // The bottom-right handle pulled 60 px right and 40 px down: the top-left corner stays.
  await stroke(page, [
    [200, 180],
    [260, 220],
  ]);
  await expect.poll(async () => near(await boxOf(page), [100, 100, 160, 120])).toBe(true);
  await expect(rows(page)).toHaveCount(1);

  const exported = async () => JSON.parse((await download(page, 'COCO JSON (whole session)')).toString('utf8')) as CocoBoxes;
  const [annotation] = (await exported()).annotations;
  expect(annotation.segmentation).toEqual([]);
  expect(near(annotation.bbox, await boxOf(page), 0.01)).toBe(true);
  expect(Math.abs(annotation.area - annotation.bbox[2] * annotation.bbox[3])).toBeLessThan(0.01);

  // Undo the resize, then the box itself: one step each.
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+z');
  await expect.poll(async () => near(await boxOf(page), [100, 100, 100, 80])).toBe(true);
  await page.keyboard.press('Control+z');
  await expect(rows(page)).toHaveCount(0);
});

test('Box → mask: SAM’s box prompt on a drawn box replaces it by a mask in its place; undo brings the box back', async ({ page }) => {
  await openSample(page, 'Coffee cup');
  await waitForEncoder(page);
  await page.keyboard.press('o');
  await stroke(page, [
    [200, 130],
    [410, 340],
  ]);
  await expect(rows(page).first()).toHaveAttribute('data-kind', 'box');
  const objectId = await rows(page).first().getAttribute('data-object-id');
  const boxArea = Number(await rows(page).first().getAttribute('data-area'));

  await page.getByRole('button', { name: 'Box → mask' }).click();
  await expect(rows(page).first()).toHaveAttribute('data-kind', 'mask');
  await expect(rows(page)).toHaveCount(1);
  expect(await rows(page).first().getAttribute('data-object-id')).toBe(objectId);
  const maskArea = Number(await rows(page).first().getAttribute('data-area'));
  // The cup fills part of its box, not none of it and not more than all of it.
  expect(maskArea).toBeGreaterThan(boxArea * 0.2);
  expect(maskArea).toBeLessThan(boxArea);

  await page.keyboard.press('Control+z');
  await expect(rows(page).first()).toHaveAttribute('data-kind', 'box');
});
