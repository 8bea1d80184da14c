import { expect, test, type Page } from '@playwright/test';
import { findObjects, pasteTwoCoffees, screenshot, startFresh, waitForEncoder } from './appHelpers';

/**
 * The review queue for bulk work (issue 37), from the keyboard alone once the proposals are there:
 * open Review, type a class to create it for the proposal shown, accept, give the next one that class
 * by typing part of its name, move on, and filter the queue by class. Real models (text prompt "cup"
 * on two coffee cups), production build, real Chromium.
 */

test.beforeEach(async ({ page }) => startFresh(page));

const current = (page: Page) => page.getByTestId('review-current');
const rows = (page: Page) => page.getByTestId('object-row');

test('type-ahead class picker, a new class from the queue, and a class filter, all from the keyboard', async ({ page }) => {
  await pasteTwoCoffees(page);
  await waitForEncoder(page);
  await findObjects(page, 'cup');
  await expect(page.getByRole('form', { name: 'Text prompt' }).getByRole('status')).toContainText(/cup: [2-9] found/, { timeout: 120_000 });
  const found = await rows(page).count();
  // Keys from here on: the text prompt's field must not keep them.
  await page.getByTestId('canvas').click({ position: { x: 2, y: 2 } });

  // R opens Review; the help lists the picker's key.
  await page.keyboard.press('r');
  const panel = page.getByRole('region', { name: 'Review' });
  await expect(current(page)).toContainText(`cup · `);
  await expect(current(page)).toContainText(`1 of ${found}`);
  await expect(panel.getByTestId('accept-all-precision')).toHaveText(/not measured yet: 0 of your decisions there, 10 needed/);
  // What the default promises, and that the fallback promises nothing.
  await expect(panel.getByTestId('accept-all-default')).toHaveText(/with 95 % confidence, that at least 95 % of what it accepts is right takes at least 59 decisions.*starts at 80 %, which promises nothing/);
  await page.keyboard.press('?');
  const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(help).toContainText('Type the class of the proposal shown');
  await page.keyboard.press('Escape');
  await expect(help).toBeHidden();
  await expect(panel).toBeVisible();

  // "/" puts the keyboard in the class picker, a combobox with its list of classes.
  await page.keyboard.press('/');
  const picker = panel.getByRole('combobox', { name: 'Class (/)' });
  await expect(picker).toBeFocused();
  await expect(picker).toHaveAttribute('aria-expanded', 'true');
  // A name no class has: the only option is to create it, and it is the active one.
  await page.keyboard.type('saucer');
  const options = panel.getByRole('listbox', { name: 'Class (/)' }).getByRole('option');
  await expect(options).toHaveText(['Create class “saucer”']);
  await expect(options.first()).toHaveAttribute('aria-selected', 'true');
  await expect(picker).toHaveAttribute('aria-activedescendant', (await options.first().getAttribute('id'))!);
  await screenshot(page, 'review-queue-01-create-class');
  await page.keyboard.press('Enter');
  await expect(current(page)).toContainText('saucer · ');
  await expect(current(page)).toContainText(`1 of ${found}`);
  await expect(page.getByRole('region', { name: 'Classes' }).getByTestId('class-row')).toHaveCount(2);

  // Enter accepts it (the picker gave the keyboard back); the next proposal is shown.
  await page.keyboard.press('Enter');
  await expect(rows(page).first()).toHaveAttribute('data-review', 'accepted');
  await expect(current(page)).toContainText(`1 of ${found - 1}`);
  await expect(current(page)).toContainText('cup · ');

  // Part of a name calls the class up; arrows move through the matches, Enter gives it.
  await page.keyboard.press('/');
  await page.keyboard.type('c');
  await expect(options).toHaveText(['cup', 'saucer', 'Create class “c”']);
  await page.keyboard.press('ArrowDown');
  await expect(options.nth(1)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(current(page)).toContainText('saucer · ');
  await expect(page.getByRole('region', { name: 'Classes' }).getByTestId('class-row')).toHaveCount(2);

  // J moves on without deciding.
  const shownBefore = await page.getByTestId('canvas').getAttribute('data-review-current');
  await page.keyboard.press('j');
  if (found > 2) await expect(page.getByTestId('canvas')).not.toHaveAttribute('data-review-current', shownBefore!);
  await expect(current(page)).toContainText(`${found > 2 ? 2 : 1} of ${found - 1}`);

  // Filter by class, from the keyboard: Tab from the picker reaches the queue's class filter.
  await page.keyboard.press('/');
  await page.keyboard.press('Tab');
  const filter = panel.getByRole('combobox', { name: 'Show' });
  await expect(filter).toBeFocused();
  await page.keyboard.type('sauc');
  await expect(panel.getByRole('listbox', { name: 'Show' }).getByRole('option')).toHaveText(['saucer']);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('review-count')).toHaveText(`1 of ${found - 1} to review`);
  await expect(current(page)).toContainText('saucer · ');
  await expect(current(page)).toContainText('1 of 1');
  await screenshot(page, 'review-queue-02-filtered');

  // Esc leaves the picker without a change; the filter back to all classes; Enter accepts the one shown.
  await page.keyboard.press('/');
  await page.keyboard.type('zzz');
  await page.keyboard.press('Escape');
  await expect(current(page)).toContainText('saucer · ');
  await expect(panel).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('review-count')).toHaveText(`0 of ${found - 2} to review`);
  await expect(panel.getByRole('status')).toHaveText('Nothing to review with these filters.');
});
