import AxeBuilder from '@axe-core/playwright';
import { expect, test, type CDPSession, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { clickImage, imageToPage, openSample, personSignedUp, screenshot, waitForEncoder } from './appHelpers';

/**
 * The studio for everyone (issue 18): phone and tablet by touch, desktop by keyboard alone, screen
 * readers (axe-core, WCAG 2 A/AA), and the rough edges a new user ran into — each pinned here.
 * Real Chromium, the production build, the real model in the browser.
 */

const PHONE = { width: 390, height: 844 };
const TABLET = { width: 820, height: 1180 };

async function freshStudio(page: Page): Promise<void> {
  await page.goto('/');
  await page.evaluate(() => indexedDB.deleteDatabase('maskwright'));
  await page.evaluate(() => localStorage.clear());
  await page.reload();
}

async function expectAxeClean(page: Page, state: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze();
  const found = results.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
  expect(found, `axe-core violations in state "${state}"`).toEqual([]);
}

async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

/** Every visible control a finger may need is at least 44 × 44 CSS px. */
async function expectFingerSizedTargets(page: Page): Promise<void> {
  const small = await page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>('button, a.nav-link, .segmented-option, .sheet-toggle'))
      .filter((el) => el.offsetParent !== null && !el.closest('.visually-hidden'))
      .map((el) => ({ name: el.getAttribute('aria-label') ?? el.textContent?.trim() ?? el.className, rect: el.getBoundingClientRect() }))
      .filter(({ rect }) => rect.width > 0 && (rect.height < 44 || rect.width < 44))
      .map(({ name, rect }) => `${name}: ${Math.round(rect.width)}×${Math.round(rect.height)}`),
  );
  expect(small).toEqual([]);
}

/** Real touch input (CDP): the page sees touch events and pointer events with pointerType "touch". */
class Fingers {
  private constructor(private readonly cdp: CDPSession) {}
  static async on(page: Page): Promise<Fingers> {
    return new Fingers(await page.context().newCDPSession(page));
  }
  /** `at` (seconds since the epoch) is when the finger did it; CDP stamps the time it is sent otherwise. */
  private send(type: 'touchStart' | 'touchMove' | 'touchEnd', points: Array<{ x: number; y: number }>, at?: number) {
    return this.cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points.map((p, id) => ({ x: p.x, y: p.y, id })), ...(at ? { timestamp: at } : {}) });
  }
  async tap(at: { x: number; y: number }) {
    await this.send('touchStart', [at]);
    await this.send('touchEnd', []);
  }
  async longPress(at: { x: number; y: number }) {
    await this.send('touchStart', [at]);
    await new Promise((r) => setTimeout(r, 900));
    await this.send('touchEnd', []);
  }
  /**
   * A finger moving every 16 ms, by its own clock: CDP sends each move only once the page has taken
   * the one before, and a real finger does not wait for a busy page, so each event carries the time
   * the finger made it.
   */
  async drag(from: { x: number; y: number }, to: { x: number; y: number }, steps = 8) {
    const start = Date.now() / 1000;
    await this.send('touchStart', [from], start);
    for (let i = 1; i <= steps; i++) await this.send('touchMove', [{ x: from.x + ((to.x - from.x) * i) / steps, y: from.y + ((to.y - from.y) * i) / steps }], start + i * 0.016);
    await this.send('touchEnd', [], start + (steps + 1) * 0.016);
  }
  async pinch(center: { x: number; y: number }, fromSpread: number, toSpread: number, steps = 6) {
    const at = (spread: number) => [
      { x: center.x - spread / 2, y: center.y },
      { x: center.x + spread / 2, y: center.y },
    ];
    await this.send('touchStart', at(fromSpread));
    for (let i = 1; i <= steps; i++) await this.send('touchMove', at(fromSpread + ((toSpread - fromSpread) * i) / steps));
    await this.send('touchEnd', []);
  }
  /** Two fingers a fixed distance apart, moved together by `by`. */
  async pan(center: { x: number; y: number }, by: { x: number; y: number }, steps = 6) {
    const at = (f: number) => [
      { x: center.x - 50 + by.x * f, y: center.y + by.y * f },
      { x: center.x + 50 + by.x * f, y: center.y + by.y * f },
    ];
    await this.send('touchStart', at(0));
    for (let i = 1; i <= steps; i++) await this.send('touchMove', at(i / steps));
    await this.send('touchEnd', []);
  }
}

/** The canvas publishes its camera as "scale,x,y". */
async function cameraOf(page: Page): Promise<{ scale: number; x: number; y: number }> {
  const [scale, x, y] = (await page.getByTestId('canvas').getAttribute('data-camera'))!.split(',').map(Number);
  return { scale, x, y };
}

/** Two fingers pinch the canvas open to twice their spread: the view zooms in (and nothing is placed). */
async function expectPinchZooms(page: Page, fingers: Fingers): Promise<void> {
  const canvasBox = (await page.getByTestId('canvas').boundingBox())!;
  const before = await cameraOf(page);
  await fingers.pinch({ x: canvasBox.x + canvasBox.width / 2, y: canvasBox.y + canvasBox.height / 2 }, 100, 200);
  await expect.poll(async () => (await cameraOf(page)).scale).toBeGreaterThan(before.scale * 1.5);
}

/** Two fingers moved together pan the view by as much, at the same zoom. */
async function expectTwoFingersPan(page: Page, fingers: Fingers): Promise<void> {
  const canvasBox = (await page.getByTestId('canvas').boundingBox())!;
  const before = await cameraOf(page);
  await fingers.pan({ x: canvasBox.x + canvasBox.width / 2, y: canvasBox.y + canvasBox.height / 2 }, { x: 60, y: -40 });
  await expect.poll(async () => Math.round((await cameraOf(page)).x - before.x)).toBe(60);
  const after = await cameraOf(page);
  expect(Math.round(after.y - before.y)).toBe(-40);
  expect(after.scale).toBe(before.scale);
}

/**
 * A phone's page stalls now and then (a render, a garbage collection, another app on the CPU). This
 * stalls it right after the next press on the canvas, while the finger goes on moving: the moves
 * reach the page late, stamped with the time the finger made them.
 */
async function stallAfterNextPress(page: Page, ms: number): Promise<void> {
  await page.getByTestId('canvas').evaluate((canvas, stallMs) => {
    const stall = () => {
      const end = performance.now() + stallMs;
      while (performance.now() < end);
    };
    canvas.addEventListener('pointerdown', () => setTimeout(stall, 20), { once: true });
  }, ms);
}

test.describe('phone, touch only', () => {
  test.use({ viewport: PHONE, hasTouch: true, isMobile: true });

  test('the canvas takes the screen; tap selects, long-press excludes, Accept keeps it', async ({ page }) => {
    await freshStudio(page);
    await expectNoSidewaysScroll(page);
    await expectAxeClean(page, 'phone: empty studio');
    await screenshot(page, 'everyone-phone-01-empty');

    await page.locator('.sample-card', { hasText: 'Coffee cup' }).tap();
    const canvas = page.getByTestId('canvas');
    await expect(canvas).toHaveAttribute('data-camera', /\d/);
    const canvasBox = (await canvas.boundingBox())!;
    expect(canvasBox.width).toBeGreaterThanOrEqual(PHONE.width - 1);
    expect(canvasBox.height).toBeGreaterThan(PHONE.height * 0.55);
    // The panels are sheets, closed until asked for.
    await expect(page.getByRole('complementary', { name: 'Selection and objects' })).toBeHidden();
    await expectNoSidewaysScroll(page);
    await expectFingerSizedTargets(page);
    await waitForEncoder(page);

    const fingers = await Fingers.on(page);
    await fingers.tap(await imageToPage(page, 300, 235));
    const announcement = page.getByTestId('result-announcement');
    await expect(announcement).toHaveText(/^Mask: \d+ % of the image, \d+ parts?/);
    await fingers.longPress(await imageToPage(page, 150, 330));
    const panel = page.getByRole('complementary', { name: 'Selection and objects' });
    await page.getByRole('button', { name: /^Selection/ }).tap();
    await expect(panel).toBeVisible();
    await expect(panel.locator('.chip.negative')).toHaveText('1 negative');
    await expect(panel.locator('.chip.positive')).toHaveText('1 positive');
    await expectAxeClean(page, 'phone: selection sheet with candidates');
    await screenshot(page, 'everyone-phone-02-selection-sheet');
    await page.getByRole('button', { name: /^Selection/ }).tap();
    await expect(panel).toBeHidden();
    await screenshot(page, 'everyone-phone-03-mask');

    // Accept from the bar under the canvas, one tap.
    await page.getByRole('button', { name: 'Accept', exact: true }).tap();
    await expect(page.getByRole('button', { name: /^Selection · 1 object/ })).toBeVisible();
    await expect(announcement).toHaveText('1 object on this image.');
  });

  test('after accepting, two fingers pinch-zoom and pan, a one-finger drag draws a box, on a stalling page too', async ({ page }) => {
    await freshStudio(page);
    await page.locator('.sample-card', { hasText: 'Coffee cup' }).tap();
    const canvas = page.getByTestId('canvas');
    await expect(canvas).toHaveAttribute('data-camera', /\d/);
    await waitForEncoder(page);
    const fingers = await Fingers.on(page);
    const panel = page.getByRole('complementary', { name: 'Selection and objects' });
    const selectionToggle = page.getByRole('button', { name: /^Selection/ });
    await fingers.tap(await imageToPage(page, 300, 235));
    await page.getByRole('button', { name: 'Accept', exact: true }).tap();
    await expect(page.getByRole('button', { name: /^Selection · 1 object/ })).toBeVisible();

    // Two fingers pinch-zoom and pan (and place nothing).
    await expectPinchZooms(page, fingers);
    await expectTwoFingersPan(page, fingers);
    await page.getByRole('button', { name: 'Fit to screen', exact: true }).tap();

    // A drag is a box (center-anchored by default); the next tap opens the Selection sheet.
    await fingers.drag(await imageToPage(page, 300, 230), await imageToPage(page, 380, 300));
    await selectionToggle.tap();
    await expect(panel.locator('.chip.box')).toHaveText(/box 1[56]\d×1[34]\d/);
    await expect(panel.locator('.chip.positive')).toHaveCount(0);
    await expect(panel.locator('.chip.negative')).toHaveCount(0);
    await screenshot(page, 'everyone-phone-04-box');
    await selectionToggle.tap();
    await expect(panel).toBeHidden();

    // The same when the page stalls past the long-press time just after the press: the drag is still
    // a box (not a long press), and the tap right after it still opens the sheet.
    await stallAfterNextPress(page, 900);
    await fingers.drag(await imageToPage(page, 300, 230), await imageToPage(page, 360, 290));
    await selectionToggle.tap();
    await expect(panel).toBeVisible();
    await expect(panel.locator('.chip.box')).toHaveText(/box 1[12]\d×1[12]\d/);
    await expect(panel.locator('.chip.negative')).toHaveCount(0);
  });
});

test.describe('phone menus', () => {
  test.use({ viewport: PHONE, hasTouch: true, isMobile: true });

  test('Import works before any photo; Export opens over the screen, every entry visible, not clipped by the toolbar', async ({ page }) => {
    await freshStudio(page);
    await page.getByRole('button', { name: 'Import', exact: true }).tap();
    await expect(page.getByRole('dialog', { name: 'Import' })).toBeVisible();
    await page.keyboard.press('Escape');
    await page.locator('.sample-card', { hasText: 'Coffee cup' }).tap();
    await expect(page.getByTestId('canvas')).toHaveAttribute('data-camera', /\d/);
    const exportButton = page.getByRole('button', { name: 'Export', exact: true });
    await exportButton.scrollIntoViewIfNeeded();
    await exportButton.tap();
    const dialog = page.getByRole('dialog', { name: 'Export' });
    const box = (await dialog.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    expect(box.height).toBeGreaterThan(200); // more than the one line the toolbar used to show
    // The entry is really on top where it is drawn: the point at its centre belongs to it.
    const coco = dialog.getByRole('button', { name: 'COCO JSON (whole session)' });
    const b = (await coco.boundingBox())!;
    const hit = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest('[role="dialog"]')?.getAttribute('aria-label') ?? null, [b.x + b.width / 2, b.y + b.height / 2]);
    expect(hit).toBe('Export');
    await screenshot(page, 'everyone-phone-05-export-menu');
  });
});

test.describe('tablet, touch', () => {
  test.use({ viewport: TABLET, hasTouch: true, isMobile: true });

  test('canvas and panel side by side, the image list a sheet; tap segments, Accept keeps', async ({ page }) => {
    await freshStudio(page);
    await expectNoSidewaysScroll(page);
    await page.locator('.sample-card', { hasText: 'Coffee cup' }).tap();
    await expect(page.getByTestId('canvas')).toHaveAttribute('data-camera', /\d/);
    const panel = page.getByRole('complementary', { name: 'Selection and objects' });
    await expect(panel).toBeVisible();
    await expect(page.getByRole('complementary', { name: 'Images' })).toBeHidden();
    await page.getByRole('button', { name: 'Images', exact: true }).tap();
    await expect(page.getByRole('complementary', { name: 'Images' })).toBeVisible();
    await screenshot(page, 'everyone-tablet-01-image-sheet');
    await page.getByRole('button', { name: 'Images', exact: true }).tap();
    await expectFingerSizedTargets(page);
    await waitForEncoder(page);
    await (await Fingers.on(page)).tap(await imageToPage(page, 300, 235));
    await expect(panel.getByRole('radiogroup', { name: 'Mask candidates' }).getByRole('radio').first()).toBeVisible();
    await expectNoSidewaysScroll(page);
    await expectAxeClean(page, 'tablet: candidates');
    await screenshot(page, 'everyone-tablet-02-candidates');
    await panel.getByRole('button', { name: 'Accept object' }).tap();
    await expect(page.getByTestId('object-row')).toHaveCount(1);

    // The other gestures, as on the phone: long-press excludes, a drag is a box, two fingers zoom and pan.
    const fingers = await Fingers.on(page);
    await fingers.longPress(await imageToPage(page, 150, 330));
    await expect(panel.locator('.chip.negative')).toHaveText('1 negative');
    await fingers.drag(await imageToPage(page, 300, 230), await imageToPage(page, 380, 300));
    await expect(panel.locator('.chip.box')).toHaveText(/box 1[56]\d×1[34]\d/);
    await expect(panel.locator('.chip.positive')).toHaveCount(0);
    await expectPinchZooms(page, fingers);
    await expectTwoFingersPan(page, fingers);
    await expect(panel.locator('.chip.negative')).toHaveText('1 negative');
    await expect(panel.locator('.chip.positive')).toHaveCount(0);
  });
});

test('nothing scrolls sideways at any width from 360 to 1440 px, on the studio and the account pages', async ({ page }) => {
  await freshStudio(page);
  await openSample(page, 'Coffee cup');
  for (const hash of ['#/', '#/credits', '#/keys', '#/account']) {
    await page.goto(`/${hash}`);
    for (const width of [360, 390, 600, 820, 1024, 1280, 1440]) {
      await page.setViewportSize({ width, height: 800 });
      await expect(page.getByRole('main')).toHaveCount(1);
      await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${hash} at ${width} px`).toBeLessThanOrEqual(0);
      if (hash === '#/' && width === 1024) await screenshot(page, 'everyone-1024-studio');
      if (hash === '#/' && width === 360) await screenshot(page, 'everyone-360-studio');
    }
  }
});

test.describe('desktop', () => {
  test.use({ viewport: { width: 1440, height: 900 } });

  test('keyboard only: open a sample, crosshair to the cup, Enter, accept; Box with two Enters', async ({ page }) => {
    await freshStudio(page);
    await expectAxeClean(page, 'desktop: empty studio');
    await expect(page.getByRole('main')).toHaveCount(1);
    await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1);
    const focusOn = async (predicate: string, limit = 60) => {
      for (let i = 0; i < limit; i++) {
        await page.keyboard.press('Tab');
        if (await page.evaluate(predicate)) return;
      }
      throw new Error(`never reached by Tab: ${predicate}`);
    };
    await focusOn(`document.activeElement?.getAttribute('aria-label') === 'Sample: Coffee cup'`);
    await page.keyboard.press('Enter');
    const canvas = page.getByTestId('canvas');
    await expect(canvas).toHaveAttribute('data-camera', /\d/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(/coffee\.png/);
    await waitForEncoder(page);
    await focusOn(`document.activeElement?.dataset.testid === 'canvas'`);
    await expect(canvas).toHaveAttribute('data-crosshair', '300,200');
    // The cup is at about (300, 235): down by arrow steps (one step = 8 screen px).
    for (let i = 0; i < 8 && Number((await canvas.getAttribute('data-crosshair'))!.split(',')[1]) < 232; i++) await page.keyboard.press('ArrowDown');
    const crosshairY = Number((await canvas.getAttribute('data-crosshair'))!.split(',')[1]);
    expect(crosshairY).toBeGreaterThan(215);
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('Shift+ArrowLeft');
    await expect(canvas).toHaveAttribute('data-crosshair', `300,${crosshairY}`);
    await screenshot(page, 'everyone-desktop-01-crosshair');
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('result-announcement')).toHaveText(/^Mask: \d+ % of the image, \d+ parts?/);
    await expect(page.locator('.chip.positive')).toHaveText('1 positive');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+Enter');
    await expect(page.locator('.chip.negative')).toHaveText('1 negative');
    await expect(page.getByTestId('result-announcement')).toHaveText(/^Mask: /);
    await expectAxeClean(page, 'desktop: candidates');
    await screenshot(page, 'everyone-desktop-02-keyboard-mask');
    await page.keyboard.press('Control+Enter');
    await expect(page.getByTestId('object-row')).toHaveCount(1);
    await expect(canvas).toBeFocused();

    // Box tool: Enter at the center, move, Enter at the corner.
    await page.keyboard.press('x');
    await expect(page.getByRole('button', { name: 'Box', exact: true })).toHaveAttribute('aria-pressed', 'true');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Enter');
    await expect(page.locator('.chip.box')).toHaveText(/box \d+×\d+/);
    await expectAxeClean(page, 'desktop: object accepted, box prompt');
    await screenshot(page, 'everyone-desktop-03-keyboard-box');
  });

  test('the help dialog takes focus, keeps it, closes on Esc; the Export dialog does the same, with arrows too', async ({ page }) => {
    await freshStudio(page);
    await openSample(page, 'Coffee cup');
    await waitForEncoder(page);
    await clickImage(page, 300, 235);
    await page.getByRole('button', { name: 'Accept object' }).click();
    await expect(page.getByTestId('object-row')).toHaveCount(1);

    const helpButton = page.getByRole('button', { name: 'Keyboard shortcuts' });
    await helpButton.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await expect(dialog).toBeVisible();
    await expect.poll(() => page.evaluate(() => Boolean(document.activeElement?.closest('[role="dialog"]')))).toBe(true);
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press(i % 2 ? 'Shift+Tab' : 'Tab');
      expect(await page.evaluate(() => Boolean(document.activeElement?.closest('[role="dialog"]')))).toBe(true);
    }
    await expectAxeClean(page, 'desktop: help dialog');
    await screenshot(page, 'everyone-desktop-04-help');
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await expect(helpButton).toBeFocused();

    // Export is a small dialog (issue 13): focus moves in, Tab and arrows stay inside, Esc closes back to the button.
    const exportButton = page.getByRole('button', { name: 'Export', exact: true });
    await exportButton.focus();
    await page.keyboard.press('Enter');
    const exportDialog = page.getByRole('dialog', { name: 'Export' });
    await expect(exportDialog).toBeVisible();
    const focusInExport = () => page.evaluate(() => Boolean(document.activeElement?.closest('[aria-label="Export"]')));
    await expect.poll(focusInExport).toBe(true);
    for (const key of ['ArrowDown', 'ArrowDown', 'ArrowUp', 'Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab']) {
      await page.keyboard.press(key);
      expect(await focusInExport(), `after ${key}`).toBe(true);
    }
    await expectAxeClean(page, 'desktop: export dialog');
    await screenshot(page, 'everyone-desktop-05-export-menu');
    await page.keyboard.press('Escape');
    await expect(exportDialog).toHaveCount(0);
    await expect(exportButton).toBeFocused();
    await page.keyboard.press('Enter');
    const coco = exportDialog.getByRole('button', { name: 'COCO JSON (whole session)' });
    for (let i = 0; i < 10 && !(await coco.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('ArrowDown');
    await expect(coco).toBeFocused();
    const download = page.waitForEvent('download');
    await page.keyboard.press('Enter');
    expect((await download).suggestedFilename()).toBe('maskwright-session.coco.json');
  });

  test('box by corners: the setting and Shift while dragging; the box stays center-anchored', async ({ page }) => {
    await freshStudio(page);
    await openSample(page, 'Coffee cup');
    await waitForEncoder(page);
    await page.getByRole('button', { name: 'Box', exact: true }).click();
    const drag = async (from: [number, number], to: [number, number], shift = false) => {
      const a = await imageToPage(page, ...from);
      const b = await imageToPage(page, ...to);
      await page.mouse.move(a.x, a.y);
      await page.mouse.down();
      if (shift) await page.keyboard.down('Shift');
      await page.mouse.move(b.x, b.y, { steps: 6 });
      await page.mouse.up();
      if (shift) await page.keyboard.up('Shift');
    };
    // Screen pixels are whole numbers, so the image-pixel size is within a pixel or two of the drag.
    const boxSize = async () => (await page.locator('.chip.box').textContent())!.match(/box (\d+)×(\d+)/)!.slice(1).map(Number);
    const expectBoxNear = async (width: number, height: number) => {
      await expect(page.locator('.chip.box')).toBeVisible();
      const [w, h] = await boxSize();
      expect(Math.abs(w - width)).toBeLessThanOrEqual(2);
      expect(Math.abs(h - height)).toBeLessThanOrEqual(2);
    };
    // Default: from the center — 2 × the drag.
    await drag([300, 230], [340, 260]);
    await expectBoxNear(80, 60);
    await page.keyboard.press('Escape');
    // Shift while dragging: corner to corner.
    await drag([220, 150], [380, 310], true);
    await expectBoxNear(160, 160);
    await page.keyboard.press('Escape');
    // The setting: corner to corner without a key.
    await page.getByLabel('Corner to corner').check();
    await expect(page.getByText('Drag from one corner of the object to the opposite corner.')).toBeVisible();
    await drag([220, 150], [380, 310]);
    await expectBoxNear(160, 160);
    await expect(page.getByRole('radiogroup', { name: 'Mask candidates' }).getByRole('radio').first()).toBeVisible();
    await screenshot(page, 'everyone-desktop-06-corner-box');
  });
});

test.describe('rough edges', () => {
  test.use({ viewport: { width: 1280, height: 860 } });

  test('releasing the mouse outside the canvas finishes the box; the next click commits nothing', async ({ page }) => {
    await freshStudio(page);
    await openSample(page, 'Coffee cup');
    await page.getByRole('button', { name: 'Box', exact: true }).click();
    const a = await imageToPage(page, 300, 200);
    await page.mouse.move(a.x, a.y);
    await page.mouse.down();
    const header = (await page.locator('.app-header').boundingBox())!;
    await page.mouse.move(a.x + 60, header.y + 5, { steps: 8 });
    await page.mouse.up();
    const chip = page.locator('.chip.box');
    await expect(chip).toHaveText(/box \d+×\d+/);
    const drawn = await chip.textContent();
    // A plain click afterwards is not a box, and nothing was left stuck to the cursor.
    await clickImage(page, 100, 100);
    await page.mouse.move(a.x - 100, a.y + 50, { steps: 4 });
    await expect(chip).toHaveText(drawn!);
  });

  test('after clicking a candidate thumbnail, Enter accepts (as the help says)', async ({ page }) => {
    await freshStudio(page);
    await openSample(page, 'Coffee cup');
    await waitForEncoder(page);
    await clickImage(page, 300, 235);
    const candidates = page.getByRole('radiogroup', { name: 'Mask candidates' }).getByRole('radio');
    await expect(candidates.nth(1)).toBeVisible();
    await candidates.nth(1).click();
    await expect(candidates.nth(1)).toHaveAttribute('aria-checked', 'true');
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('object-row')).toHaveCount(1);
  });

  test('coming back to an analysed photo says "Ready — hover to preview"', async ({ page }) => {
    await freshStudio(page);
    await openSample(page, 'Coffee cup');
    await waitForEncoder(page);
    await openSample(page, 'Chelsea the cat');
    await waitForEncoder(page);
    await page.getByRole('button', { name: /^coffee\.png/ }).click();
    await expect(page.getByTestId('engine-phase')).toHaveText('Ready — hover to preview, click to select');
  });

  test('a prompt with only a negative point says what is missing', async ({ page }) => {
    await freshStudio(page);
    await openSample(page, 'Coffee cup');
    await clickImage(page, 300, 235, 'right');
    await expect(page.locator('.chip.negative')).toHaveText('1 negative');
    await expect(page.getByRole('status').filter({ hasText: 'A negative point only excludes' })).toBeVisible();
  });

  test('a truncated JPEG is refused by name; a corrupt file is named in its notice', async ({ page }) => {
    await freshStudio(page);
    const jpeg = readFileSync('public/samples/rocket.jpg');
    await page.getByLabel('Open image').setInputFiles({ name: 'cut-short.jpg', mimeType: 'image/jpeg', buffer: jpeg.subarray(0, Math.floor(jpeg.length / 2)) });
    await expect(page.getByRole('alert')).toContainText('cut-short.jpg');
    await expect(page.getByRole('alert')).toContainText('truncated');
    await expect(page.getByTestId('canvas')).toHaveCount(0);
    await page.getByRole('button', { name: 'Dismiss' }).click();
    await page.getByLabel('Open image').setInputFiles({ name: 'garbage.png', mimeType: 'image/png', buffer: Buffer.from('this is not a picture at all') });
    await expect(page.getByRole('alert')).toContainText('garbage.png');
  });

  test('the API-key field shows the real key prefix', async ({ page }) => {
    await freshStudio(page);
    await page.getByRole('radio', { name: 'Remote' }).check();
    await expect(page.locator('input[placeholder^="mw"]')).toHaveAttribute('placeholder', 'mwk_…');
  });

  test('the Detail slider runs the same way as its number and does not speak in pixels', async ({ page }) => {
    await freshStudio(page);
    await openSample(page, 'Coffee cup');
    await waitForEncoder(page);
    await clickImage(page, 300, 235);
    await page.getByRole('button', { name: 'Accept object' }).click();
    const slider = page.getByLabel('Polygon detail');
    const vertices = async () => Number((await page.getByTestId('object-row').textContent())!.match(/(\d+) vertices/)![1]);
    await slider.fill('2');
    await expect(page.locator('.detail-value')).toHaveText('2/10');
    const coarse = await vertices();
    await slider.fill('10');
    await expect(page.locator('.detail-value')).toHaveText('10/10');
    await expect.poll(vertices).toBeGreaterThan(coarse);
    await expect(slider).toHaveAttribute('aria-valuetext', '10 of 10');
    await expect(page.locator('.detail-slider')).not.toContainText('px');
  });

  test('the status bar keeps timings and cache hits behind "Details"', async ({ page }) => {
    await freshStudio(page);
    await openSample(page, 'Coffee cup');
    await waitForEncoder(page);
    const bar = page.getByTestId('status-bar');
    await expect(bar).not.toContainText(/Encoder|Cache hits|ms\b/);
    const details = bar.getByRole('button', { name: 'Details' });
    await details.click();
    await expect(bar).toContainText(/Encoder (\d+ ms|cache hit)/);
    await expect(bar).toContainText(/Cache hits \d+\/\d+/);
    await expect(bar.getByRole('button', { name: 'Hide details' })).toHaveAttribute('aria-expanded', 'true');
  });

  test('an anonymous visit logs no error: no 401 from the account, a favicon', async ({ page }) => {
    // The API server serves the studio and the API on one origin, as in production.
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
    await page.goto(`${process.env.E2E_API_URL}/`);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(page.getByTestId('balance')).toHaveText('Not signed in');
    const favicon = await page.request.get(`${process.env.E2E_API_URL}/favicon.svg`);
    expect(favicon.status()).toBe(200);
    await page.waitForTimeout(1500);
    expect(errors).toEqual([]);
  });

  test('signed in, every header link and inference choice stays on one line, from a desktop down to a 360 px phone', async ({ browser }) => {
    const { page } = await personSignedUp(browser, 'header');
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' })).toBeVisible();
    for (const width of [1280, 1200, 1024, 480, 390, 360]) {
      await page.setViewportSize({ width, height: 800 });
      const layout = await page.evaluate(() => {
        // The lines its words sit on (a radio input inside the element has a box of its own: text only).
        const lineTops = (el: Element) => {
          const tops = new Set<number>();
          const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const range = document.createRange();
            range.selectNodeContents(node);
            for (const rect of Array.from(range.getClientRects())) if (rect.width > 0) tops.add(Math.round(rect.top));
          }
          return tops.size;
        };
        const shown = (selector: string) => Array.from(document.querySelectorAll<HTMLElement>(selector)).filter((el) => el.offsetParent !== null);
        const links = shown('.app-header .nav-link');
        return {
          broken: shown('.app-header .nav-link, .app-header .segmented-option').filter((el) => lineTops(el) > 1).map((el) => el.textContent!.trim()),
          linkRows: new Set(links.map((el) => Math.round(el.getBoundingClientRect().top))).size,
          links: links.length,
        };
      });
      expect(layout.broken, `labels broken over two lines at ${width} px`).toEqual([]);
      expect(layout.links, `header links shown at ${width} px`).toBe(5);
      expect(layout.linkRows, `rows of header links at ${width} px`).toBe(1);
    }
    await expectNoSidewaysScroll(page);
    await page.context().close();
  });
});
