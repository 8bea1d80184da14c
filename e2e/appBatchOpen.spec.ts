/**
 * Twenty photos opened at once on a 1440×900 screen, as a new user does with a COCO batch: the batch
 * opens on its first photo, the image list shows what tells the names apart (their end), the toolbar
 * stays on one row, the Label all button holds its words, and the panel headings say each word once.
 * The photos are read in place from the shared evaluation data.
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { sharedPath } from '../test/support/sharedData';
import { openSample, screenshot, startFresh } from './appHelpers';

const FOLDER = sharedPath('eval/coco-tiny/images');
const BATCH = readdirSync(FOLDER)
  .filter((n) => n.endsWith('.jpg'))
  .sort()
  .slice(0, 20);

test.use({ viewport: { width: 1440, height: 900 } });

/** Whether `inner`'s box lies inside `outer`'s (a pixel of rounding allowed). */
async function inside(inner: Locator, outer: Locator): Promise<boolean> {
  const a = await inner.boundingBox();
  const b = await outer.boundingBox();
  if (!a || !b) return false;
  return a.x >= b.x - 1 && a.y >= b.y - 1 && a.x + a.width <= b.x + b.width + 1 && a.y + a.height <= b.y + b.height + 1;
}

async function openBatch(page: Page): Promise<void> {
  await startFresh(page);
  await page.getByLabel('Open image').setInputFiles(BATCH.map((n) => join(FOLDER, n)));
  await expect(page.locator('.image-strip .session-item')).toHaveCount(BATCH.length);
}

test('a batch of 20 photos opens on its first photo, and the list shows the end of each name', async ({ page }) => {
  await openBatch(page);
  // Soft: each defect is reported on its own.
  await expect.soft(page.locator('.thumb[aria-current="true"] .thumb-name')).toHaveText(BATCH[0]);
  await expect.soft(page.getByRole('heading', { level: 1 })).toHaveText(`Studio: ${BATCH[0]}`);
  // 000000005001.jpg and 000000010764.jpg share their start: the end of each shows whole in the strip.
  const items = page.locator('.image-strip .session-item');
  const tails = items.locator('.thumb-name-tail');
  expect.soft(await tails.allTextContents()).toEqual(BATCH.map((name) => name.slice(-10)));
  for (let i = 0; i < (await tails.count()); i++) {
    expect.soft(await inside(tails.nth(i), items.nth(i).locator('.thumb')), `${BATCH[i]}: its end is cut off`).toBe(true);
  }
  await screenshot(page, 'batch-01-twenty-photos');
});

test('at 1440×900 the toolbar is one row, Label all holds its words, and headings say each word once', async ({ page }) => {
  await openBatch(page);
  const toolbar = page.getByRole('toolbar', { name: 'Tools' });
  const rows = await toolbar.evaluate((bar) => new Set([...bar.children].map((child) => Math.round(child.getBoundingClientRect().top + child.getBoundingClientRect().height / 2))).size);
  expect.soft(rows, 'toolbar rows at 1440 px').toBe(1);
  for (const tool of ['Brush', 'Eraser', 'Box']) {
    await page.getByRole('button', { name: tool, exact: true }).click();
    expect.soft(await toolbar.evaluate((bar) => new Set([...bar.children].map((c) => Math.round(c.getBoundingClientRect().top + c.getBoundingClientRect().height / 2))).size), `toolbar rows with the ${tool} tool`).toBe(1);
  }

  await expect.soft(page.getByRole('region', { name: 'Objects' }).getByRole('heading')).toHaveText('0 objects', { timeout: 5_000 });
  await page.keyboard.press('r');
  await expect.soft(page.getByRole('region', { name: 'Review' }).getByRole('heading')).toHaveText('0 to review', { timeout: 5_000 });
  await page.keyboard.press('r');

  await page.keyboard.press('t');
  const labelAll = page.getByRole('button', { name: `Label all ${BATCH.length} open images · free · local` });
  await expect(labelAll).toBeVisible();
  // The words' own extent against the button's content box: a centred line too long for it spills into the padding and past the edges.
  const spill = await labelAll.evaluate((button) => {
    const words = document.createRange();
    words.selectNodeContents(button);
    const style = getComputedStyle(button);
    const room = button.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return words.getBoundingClientRect().width - room;
  });
  expect.soft(spill, 'the Label all button’s words run past its padding').toBeLessThanOrEqual(1);
  expect.soft(await inside(labelAll, page.getByRole('form', { name: 'Text prompt' })), 'the Label all button runs past its panel').toBe(true);
  await screenshot(page, 'batch-02-toolbar-label-all');
});

test('Label all’s progress and Stop stay on screen when the user leaves the text panel while it runs', async ({ page }) => {
  await startFresh(page);
  await openSample(page, 'Coffee cup');
  await openSample(page, 'Chelsea the cat');
  await page.keyboard.press('t');
  await page.getByRole('form', { name: 'Text prompt' }).getByRole('textbox').fill('cup, cat');
  await page.getByRole('button', { name: /Label all 2 open images/ }).click();
  await expect(page.getByTestId('label-all-progress')).toContainText('Labelling');
  // To review what is already in, or fix a proposal: the text panel goes, the run does not.
  await page.getByRole('button', { name: 'Select', exact: true }).click();
  const runs = page.getByRole('region', { name: 'Background runs' });
  await expect(runs.getByTestId('label-all-progress')).toContainText(/Labelling “cup, cat”: [01] of 2 images/);
  await screenshot(page, 'batch-03-label-all-outside-text-panel');
  await runs.getByRole('button', { name: 'Stop' }).click();
  // Stopped after the image in progress: the run's end shows in the text panel, where it began.
  await page.getByRole('button', { name: 'Text prompt', exact: true }).click();
  await expect(page.getByTestId('label-all-progress')).toContainText(/Stopped: [01] of 2 images/, { timeout: 150_000 });
  await expect(runs).toHaveCount(0);
});
