import { expect, test, type Page } from '@playwright/test';
import { download, findObjects, openSample, pasteTwoCoffees, screenshot, startFresh, waitForEncoder } from './appHelpers';

/**
 * Review (issue 26): a text prompt's answer arrives as proposals, drawn and counted apart; the
 * keyboard review queue accepts one and rejects one; the COCO export holds only the accepted one,
 * with its review state; a reload keeps every state. Real model, production build, real Chromium.
 */

test.beforeEach(async ({ page }) => startFresh(page));

const rows = (page: Page) => page.getByTestId('object-row');
const canvas = (page: Page) => page.getByTestId('canvas');
const reviewStates = async (page: Page) => rows(page).evaluateAll((list) => list.map((row) => row.getAttribute('data-review')));
/** The session strip's thumbnail of the photo named `name`. */
const thumbOf = (page: Page, name: string) => page.locator('.thumb', { has: page.locator('.thumb-name', { hasText: new RegExp(`^${name.replace('.', '\\.')}$`) }) });
/** Two photos open (coffee.png current, two-coffees.png beside it), and "cup" found by text on coffee.png: one proposal. */
async function oneCupFoundOnCoffee(page: Page): Promise<void> {
  await pasteTwoCoffees(page);
  await openSample(page, 'Coffee cup');
  await waitForEncoder(page);
  await findObjects(page, 'cup');
  await expect(page.getByRole('form', { name: 'Text prompt' }).getByRole('status').first()).toContainText('cup: 1 found', { timeout: 120_000 });
}
const cameraScale = async (page: Page) => Number((await canvas(page).getAttribute('data-camera'))!.split(',')[0]);

type Coco = { annotations: Array<{ attributes?: { label?: string; review_state?: string; review_source?: string } }> };

test('text prompt results are proposals; the keyboard accepts one and rejects one; only the accepted one is exported; a reload keeps the states', async ({ page }) => {
  await pasteTwoCoffees(page);
  await waitForEncoder(page);
  await findObjects(page, 'cup');
  const status = page.getByRole('form', { name: 'Text prompt' }).getByRole('status');
  await expect(status).toContainText(/cup: [2-9] found/, { timeout: 120_000 });
  const found = await rows(page).count();
  expect(found).toBeGreaterThanOrEqual(2);

  // Proposals, not objects: listed as "to review", drawn dashed (the canvas counts what it draws as what).
  expect(await reviewStates(page)).toEqual(Array(found).fill('unreviewed'));
  await expect(rows(page).first()).toContainText('to review');
  await expect(page.getByTestId('object-counts')).toHaveText(`0 objects · ${found} to review`);
  await expect(canvas(page)).toHaveAttribute('data-drawn-proposals', String(found));
  await expect(canvas(page)).toHaveAttribute('data-drawn-objects', '0');
  await screenshot(page, 'review-01-proposals');

  // The help lists the review keys.
  await page.keyboard.press('?');
  const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(help).toContainText('Reject the proposal shown');
  await expect(help).toContainText('Accept every proposal at or above');
  await page.keyboard.press('Escape');
  await expect(help).toBeHidden();

  // R opens Review on the first proposal and zooms to it.
  const fitted = await cameraScale(page);
  await page.keyboard.press('r');
  const panel = page.getByRole('region', { name: 'Review' });
  await expect(panel).toBeVisible();
  await expect(page.getByTestId('review-current')).toContainText(`1 of ${found}`);
  const firstId = await rows(page).nth(0).getAttribute('data-object-id');
  const secondId = await rows(page).nth(1).getAttribute('data-object-id');
  await expect(canvas(page)).toHaveAttribute('data-review-current', firstId!);
  await expect.poll(() => cameraScale(page)).toBeGreaterThan(fitted);
  await screenshot(page, 'review-02-queue');

  // Y accepts it and shows the next; Delete rejects that one (it leaves the list and the canvas).
  await page.keyboard.press('y');
  await expect(rows(page).nth(0)).toHaveAttribute('data-review', 'accepted');
  await expect(canvas(page)).toHaveAttribute('data-review-current', secondId!);
  await page.keyboard.press('Delete');
  await expect(rows(page)).toHaveCount(found - 1);
  await expect(page.locator(`[data-object-id="${secondId}"]`)).toHaveCount(0);
  await expect(page.getByTestId('object-counts')).toHaveText(found > 2 ? `1 object · ${found - 2} to review` : '1 object');
  await expect(canvas(page)).toHaveAttribute('data-drawn-objects', '1');
  await expect(canvas(page)).toHaveAttribute('data-drawn-proposals', String(found - 2));

  // Every decision is one undo step.
  await page.keyboard.press('Control+z');
  await expect(rows(page)).toHaveCount(found);
  await page.keyboard.press('Control+Shift+z');
  await expect(rows(page)).toHaveCount(found - 1);
  await screenshot(page, 'review-03-decided');

  // The export carries only the accepted cup, saying it was a text prompt's proposal.
  const coco = JSON.parse((await download(page, 'COCO JSON (whole session)')).toString('utf8')) as Coco;
  expect(coco.annotations).toHaveLength(1);
  expect(coco.annotations[0].attributes).toMatchObject({ review_state: 'accepted', review_source: 'text-prompt' });
  await page.keyboard.press('Escape');

  // A reload restores the states: the accepted cup, the rejected one gone, the others still to review.
  await page.waitForTimeout(1000); // the session is saved 400 ms after the last change
  await page.reload();
  await expect(rows(page)).toHaveCount(found - 1);
  expect(await reviewStates(page)).toEqual(['accepted', ...Array(found - 2).fill('unreviewed')]);
  await expect(page.locator(`[data-object-id="${secondId}"]`)).toHaveCount(0);
  await expect(canvas(page)).toHaveAttribute('data-drawn-proposals', String(found - 2));
  await screenshot(page, 'review-04-after-reload');
});

test('label all: the prompt runs on every open image, current first, with progress; accept all at or above a confidence', async ({ page }) => {
  await oneCupFoundOnCoffee(page);
  await expect(rows(page)).toHaveCount(1);

  const labelAll = page.getByRole('group', { name: 'Label all images' });
  await labelAll.getByRole('button', { name: /Label all 2 open images/ }).click();
  await expect(labelAll.getByTestId('label-all-progress')).toContainText(/Done: 2 of 2 images · [2-9] proposals to review/, { timeout: 150_000 });
  // The cup already on this photo is not proposed twice.
  await expect(labelAll).toContainText('1 already on the image');
  const thumb = (name: string) => thumbOf(page, name);
  await expect(thumb('coffee.png')).toContainText('0 objects · 1 to review');
  await expect(thumb('two-coffees.png')).toContainText(/0 objects · [2-9] to review/);
  // Both counts are readable in the narrow image list: no word runs past the edge of its label.
  const label = thumb('two-coffees.png').locator('.thumb-label');
  expect(await label.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
  await screenshot(page, 'review-05-label-all');

  // Accept all at or above 0 %: every proposal of the session, one undo step.
  await page.keyboard.press('r');
  const panel = page.getByRole('region', { name: 'Review' });
  await panel.getByRole('slider', { name: 'Accept-all confidence' }).fill('0');
  await panel.getByRole('button', { name: /Accept all \d+ ≥ 0 %/ }).click();
  await expect(page.getByTestId('review-count')).toHaveText('0 to review');
  await expect(thumb('coffee.png')).toContainText('1 object');
  await expect(thumb('two-coffees.png')).not.toContainText('to review');
  await page.keyboard.press('Control+z');
  await expect(thumb('two-coffees.png')).toContainText('to review');
});

test('label all from examples: a class no detector knows ("demitasse"), accepted once, is proposed as that class on the other image', async ({ page }) => {
  // The example: the cup found by text and accepted, its class then renamed to a word no detector
  // knows ("mug" would not do: it is a synonym of cup).
  await oneCupFoundOnCoffee(page);
  await page.keyboard.press('r');
  const panel = page.getByRole('region', { name: 'Review' });
  await panel.getByRole('slider', { name: 'Accept-all confidence' }).fill('0');
  await panel.getByRole('button', { name: /Accept all 1 ≥ 0 %/ }).click();
  await expect(page.getByTestId('review-count')).toHaveText('0 to review');
  const classes = page.getByRole('region', { name: 'Classes' });
  await classes.getByLabel('Name of class cup').fill('demitasse');
  await page.keyboard.press('Enter');

  await page.getByRole('form', { name: 'Text prompt' }).getByRole('textbox').fill('demitasse');
  const labelAll = page.getByRole('group', { name: 'Label all images' });
  await labelAll.getByRole('button', { name: /Label all 2 open images/ }).click();
  await expect(labelAll.getByTestId('label-all-progress')).toContainText(/Done: 2 of 2 images · [2-9] proposals to review/, { timeout: 150_000 });
  const thumb = (name: string) => thumbOf(page, name);
  // The example is not proposed again on its own photo; the cups of the other photo are, in its class.
  await expect(thumb('coffee.png')).toContainText('1 object');
  await expect(thumb('coffee.png')).not.toContainText('to review');
  await expect(thumb('two-coffees.png')).toContainText(/0 objects · [2-9] to review/);
  await thumb('two-coffees.png').click();
  await expect(rows(page).first()).toHaveAttribute('data-review', 'unreviewed');
  // In the example's class: no class "cup" was made for them.
  await expect(classes.getByTestId('class-row')).toHaveCount(1);
  await screenshot(page, 'review-06-label-all-from-examples');
});

test('segment everything: proposals of every region arrive counted apart, with progress and Stop; one undo removes them', async ({ page }) => {
  // Its waits below add up to more than the default test time: a slow machine fails on them, not on the test's end.
  test.setTimeout(360_000);
  await openSample(page, 'Chelsea the cat');
  await waitForEncoder(page);

  // The help lists its key; G starts it and shows the text panel, where its progress and Stop are.
  await page.keyboard.press('?');
  await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toContainText('Segment everything on this image');
  await page.keyboard.press('Escape');
  await page.keyboard.press('g');
  const everything = page.getByRole('group', { name: 'Segment everything' });
  const progress = everything.getByTestId('everything-progress');
  await expect(progress).toContainText(/Segmenting everything on chelsea\.png|Done on chelsea\.png/, { timeout: 30_000 });
  await expect(everything.getByRole('button', { name: /Segment everything/ })).toBeDisabled();

  // Stop once something is found (or the run has ended by then): what was found lands either way.
  await expect(progress).toContainText(/[1-9]\d* found so far|Done on/, { timeout: 150_000 });
  const stop = everything.getByRole('button', { name: 'Stop' });
  if (await stop.isVisible()) await stop.click().catch(() => undefined);
  await expect(progress).toContainText(/(Stopped|Done) on chelsea\.png: [1-9]\d* proposals? to review/, { timeout: 60_000 });
  await expect(everything.getByRole('button', { name: /Segment everything/ })).toBeEnabled();
  const added = Number(/: (\d+) proposals? to review/.exec((await progress.textContent())!)![1]);

  // Proposals, not objects: counted apart and drawn as proposals.
  await expect(rows(page)).toHaveCount(added);
  expect(await reviewStates(page)).toEqual(Array(added).fill('unreviewed'));
  await expect(page.getByTestId('object-counts')).toHaveText(`0 objects · ${added} to review`);
  await expect(canvas(page)).toHaveAttribute('data-drawn-proposals', String(added));
  await screenshot(page, 'review-06-segment-everything');

  // The whole answer was one undo step.
  await page.keyboard.press('Control+z');
  await expect(rows(page)).toHaveCount(0);
  await expect(page.getByTestId('object-counts')).toHaveText('0 objects');
});
