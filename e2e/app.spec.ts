import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import { readZip } from '../src/annotations/formats/zip';
import { clickImage, imageToPage, openSample, screenshot, waitForEncoder } from './appHelpers';

/**
 * The studio in real Chromium on the production build, with the real model running locally in a
 * Web Worker (WASM; headless Chromium has no WebGPU adapter here).
 */

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  // Every test starts from an empty session.
  await page.evaluate(() => indexedDB.deleteDatabase('maskwright'));
  await page.evaluate(() => localStorage.clear());
  await page.reload();
});

test('accessible names of the tools, the file input and the mode switch', async ({ page }) => {
  for (const name of ['Positive point', 'Negative point', 'Box', 'Text prompt', 'Undo', 'Redo', 'Export']) {
    await expect(page.getByRole('button', { name, exact: true })).toBeVisible();
  }
  await expect(page.getByLabel('Open image')).toHaveAttribute('type', 'file');
  const mode = page.getByRole('radiogroup', { name: 'Inference' });
  await expect(mode.getByRole('radio', { name: 'Local' })).toBeChecked();
  await expect(mode.getByRole('radio', { name: 'Remote' })).not.toBeChecked();
  await screenshot(page, '01-empty-studio');
});

test('first visit: the model download shows its progress on screen, then the studio is ready', async ({ page }) => {
  // An empty Cache API, so the models really come over the network, and a slower connection
  // (10 MB/s, the page and its worker share it) so the progress stays on screen long enough to see.
  await page.evaluate(async () => {
    for (const name of await caches.keys()) await caches.delete(name);
  });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 5, downloadThroughput: 10_000_000, uploadThroughput: 10_000_000 });
  await page.reload();
  await openSample(page, 'Coffee cup');
  const progress = page.getByRole('group', { name: 'Model download' });
  await expect(progress).toContainText(/Downloading the model · [\d.]+ (KB|MB) of [\d.]+ MB/);
  const bar = progress.getByRole('progressbar', { name: 'Model download progress' });
  const first = Number(await bar.getAttribute('value'));
  // The bar moves on; a download that finishes between two looks (the bar gone) has moved on too.
  const moved = async () => ((await bar.isVisible()) ? Number(await bar.getAttribute('value', { timeout: 1_000 }).catch(() => Infinity)) : Infinity);
  await expect.poll(moved, { timeout: 30_000 }).toBeGreaterThan(first);
  if (await bar.isVisible()) await screenshot(page, '00-model-download');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await waitForEncoder(page);
  await expect(progress).toBeHidden();
});

test('open a sample, click the cup, get a polygon, accept it; undo and redo', async ({ page }) => {
  await openSample(page, 'Coffee cup');
  await waitForEncoder(page);
  await expect(page.getByTestId('backend')).toContainText(/WASM|WebGPU/);

  // Live preview under the cursor once the encoder is ready.
  const hover = await imageToPage(page, 300, 235);
  await page.mouse.move(hover.x - 20, hover.y);
  await page.mouse.move(hover.x, hover.y, { steps: 4 });
  await expect(page.getByTestId('canvas')).toHaveAttribute('data-hover-preview', 'visible');
  await screenshot(page, '02-hover-preview');

  await clickImage(page, 300, 235);
  const candidates = page.getByRole('radiogroup', { name: 'Mask candidates' }).getByRole('radio');
  await expect(candidates.first()).toBeVisible();
  expect(await candidates.count()).toBeGreaterThanOrEqual(1);
  // Timings are for the curious: behind the status bar's Details toggle.
  await expect(page.getByTestId('status-bar')).not.toContainText(/Decoder/);
  await page.getByTestId('status-bar').getByRole('button', { name: 'Details' }).click();
  await expect(page.getByTestId('status-bar')).toContainText(/Decoder \d+ ms/);
  await screenshot(page, '03-candidates');

  // Right-click excludes a part: a negative point refines the same selection.
  await clickImage(page, 150, 330, 'right');
  await expect(page.locator('.chip.negative')).toHaveText('1 negative');
  await expect(candidates.first()).toBeVisible();

  await page.getByRole('button', { name: 'Accept object' }).click();
  await expect(page.getByTestId('object-row')).toHaveCount(1);
  await expect(page.getByTestId('object-row')).toContainText(/vertices/);
  await screenshot(page, '04-object-accepted');

  // The detail slider trades vertices for fidelity: less detail, fewer vertices.
  const vertices = async () => Number((await page.getByTestId('object-row').textContent())!.match(/(\d+) vertices/)![1]);
  const detailed = await vertices();
  await page.getByLabel('Polygon detail').fill('0.5');
  await expect.poll(vertices).toBeLessThan(detailed);

  // Undo walks back through the accept and each click; redo replays them.
  const undo = page.getByRole('button', { name: 'Undo', exact: true });
  await undo.click();
  await expect(page.getByTestId('object-row')).toHaveCount(0);
  await expect(candidates.first()).toBeVisible();
  await expect(page.locator('.chip.negative')).toHaveText('1 negative');
  await undo.click();
  await expect(page.locator('.chip.negative')).toHaveCount(0);
  await expect(candidates.first()).toBeVisible();
  await undo.click();
  await expect(candidates).toHaveCount(0);
  await page.getByRole('button', { name: 'Redo', exact: true }).click();
  await expect(candidates.first()).toBeVisible();
  await page.keyboard.press('Control+Shift+Z');
  await expect(page.locator('.chip.negative')).toHaveText('1 negative');
  await page.keyboard.press('Control+y');
  await expect(page.getByTestId('object-row')).toHaveCount(1);

  // Rename, then the session survives a reload (IndexedDB).
  await page.getByRole('button', { name: 'Rename object 1' }).click();
  await page.getByLabel('New name for object 1').fill('cup');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('object-row')).toContainText('cup');
  await page.waitForTimeout(800);
  await page.reload();
  await expect(page.getByTestId('object-row')).toHaveCount(1);
  await expect(page.getByTestId('object-row')).toContainText('cup');
});

test('a click shows its mask as soon as the decoder answers; the polygons then replace it', async ({ page }) => {
  await openSample(page, 'Coffee cup');
  await waitForEncoder(page);
  // Every change of the canvas's early-mask state, in order (a MutationObserver misses none).
  await page.evaluate(() => {
    const host = document.querySelector('[data-testid="canvas"]')!;
    const seen: string[] = [];
    (window as unknown as { earlyMaskStates: string[] }).earlyMaskStates = seen;
    new MutationObserver(() => seen.push(host.getAttribute('data-early-mask') ?? '')).observe(host, { attributes: true, attributeFilter: ['data-early-mask'] });
  });
  // A click with no rest before it: no hover decode to reuse, the click decodes for itself.
  await clickImage(page, 300, 235);
  await expect(page.getByRole('radiogroup', { name: 'Mask candidates' }).getByRole('radio').first()).toBeVisible();
  await expect(page.getByTestId('canvas')).toHaveAttribute('data-early-mask', 'none');
  expect(await page.evaluate(() => (window as unknown as { earlyMaskStates: string[] }).earlyMaskStates)).toEqual(['visible', 'none']);
});

test('when the user pauses, the mask gets the mirror pass and the next click continues from it', async ({ page }) => {
  await openSample(page, 'Coffee cup');
  await waitForEncoder(page);
  const passed = page.getByTestId('mirror-passed');
  await clickImage(page, 300, 235);
  const candidates = page.getByRole('radiogroup', { name: 'Mask candidates' }).getByRole('radio');
  await expect(candidates.first()).toBeVisible();
  // The first pause on a photo also embeds its mirror image: one more encoder run, in the worker.
  await expect(passed).toBeVisible();
  await page.getByTestId('status-bar').getByRole('button', { name: 'Details' }).click();
  await expect(page.getByTestId('mirror-pass-timing')).toContainText(/Mirror pass \d+ ms/);
  // Read from the engine worker itself: the photo's embedding and its mirror image's are both held there.
  await expect(page.getByTestId('engine-cache')).toHaveText(/Engine holds \d+ photos? · this one with its mirror image/);

  // A new click is answered at once (the note goes with the answer it described), then passed again.
  await clickImage(page, 150, 330, 'right');
  await expect(page.locator('.chip.negative')).toHaveText('1 negative');
  await expect(candidates.first()).toBeVisible();
  await expect(passed).toBeVisible();
  await screenshot(page, '04b-mirror-pass');
});

test('draw a center-anchored box around the spoon and export COCO', async ({ page }) => {
  await openSample(page, 'Coffee cup');
  await waitForEncoder(page);
  await page.getByRole('button', { name: 'Box', exact: true }).click();

  // Press at the CENTER of the spoon's bowl and drag out to a corner.
  const center = { x: 366, y: 280 };
  const half = { x: 48, y: 50 };
  const from = await imageToPage(page, center.x, center.y);
  const to = await imageToPage(page, center.x + half.x, center.y + half.y);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 8 });
  await screenshot(page, '05-box-dragging');
  await page.mouse.up();

  await expect(page.getByRole('radiogroup', { name: 'Mask candidates' }).getByRole('radio').first()).toBeVisible();
  // The box is symmetric about the press point: twice the drag distance (± mouse pixel rounding).
  const [boxW, boxH] = ((await page.locator('.chip.box').textContent()) ?? '').replace('box ', '').split('×').map(Number);
  expect(Math.abs(boxW - 2 * half.x)).toBeLessThanOrEqual(3);
  expect(Math.abs(boxH - 2 * half.y)).toBeLessThanOrEqual(3);
  await screenshot(page, '06-box-result');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('object-row')).toHaveCount(1);

  await page.getByRole('button', { name: 'Export', exact: true }).click();
  const downloadPromise = page.waitForEvent('download');
  await page.getByRole('button', { name: 'COCO JSON (whole session)' }).click();
  const download = await downloadPromise;
  expect(download.suggestedFilename()).toBe('maskwright-session.coco.json');
  const coco = JSON.parse(readFileSync((await download.path())!, 'utf8'));
  expect(coco.images).toEqual([{ id: 1, file_name: 'coffee.png', width: 600, height: 400 }]);
  // No class list yet: the object is exported as "unlabelled", nothing is left out.
  expect(coco.categories).toEqual([{ id: 1, name: 'unlabelled', supercategory: 'object', color: '#9e9e9e' }]);
  expect(coco.annotations).toHaveLength(1);
  const [annotation] = coco.annotations;
  const [bx, by, bw, bh] = annotation.bbox as number[];
  // The mask of the spoon's bowl lies within (a little slack around) the box the user drew.
  expect(bx).toBeGreaterThanOrEqual(center.x - half.x - 12);
  expect(by).toBeGreaterThanOrEqual(center.y - half.y - 12);
  expect(bx + bw).toBeLessThanOrEqual(center.x + half.x + 12);
  expect(by + bh).toBeLessThanOrEqual(center.y + half.y + 12);
  expect(annotation.area).toBeGreaterThan(1500);
  expect(annotation.segmentation[0].length).toBeGreaterThanOrEqual(6);

  // The PNG masks zip paints the same object: value 1 over exactly its area (the mask's pixels).
  const pngPromise = page.waitForEvent('download');
  await page.getByRole('button', { name: 'PNG masks zip (whole session)' }).click();
  const masks = await readZip(readFileSync((await (await pngPromise).path())!));
  const png = PNG.sync.read(Buffer.from(masks.find((f) => f.name === 'coffee.instances.png')!.data));
  expect([png.width, png.height]).toEqual([600, 400]);
  let labelled = 0;
  for (let i = 0; i < png.width * png.height; i++) if (png.data[i * 4] === 1) labelled++;
  expect(labelled).toBe(annotation.area);

  // YOLO segmentation: one line, class 0, normalised coordinates.
  const yoloPromise = page.waitForEvent('download');
  await page.getByRole('button', { name: 'YOLO segmentation zip (whole session)' }).click();
  const yoloFiles = await readZip(readFileSync((await (await yoloPromise).path())!));
  const yolo = new TextDecoder().decode(yoloFiles.find((f) => f.name === 'labels/coffee.txt')!.data).trim().split('\n');
  expect(yolo).toHaveLength(1);
  const [classId, ...coords] = yolo[0].split(' ').map(Number);
  expect(classId).toBe(0);
  expect(coords.every((v) => v >= 0 && v <= 1)).toBe(true);
});

test('keyboard help overlay, zoom and fit', async ({ page }) => {
  await openSample(page, 'Chelsea the cat');
  const canvas = page.getByTestId('canvas');
  const before = await canvas.getAttribute('data-camera');
  const at = await imageToPage(page, 200, 150);
  await page.mouse.move(at.x, at.y);
  await page.mouse.wheel(0, -400);
  await expect(canvas).not.toHaveAttribute('data-camera', before!);
  await page.keyboard.press('f');
  await expect(canvas).toHaveAttribute('data-camera', before!);
  // The toolbar's buttons are the same commands as the keys, their keys in the tooltips.
  const fit = page.getByRole('button', { name: 'Fit to screen', exact: true });
  await expect(fit).toHaveAttribute('title', 'Fit to screen (F)');
  await page.getByRole('button', { name: 'Zoom in', exact: true }).click();
  await expect(canvas).not.toHaveAttribute('data-camera', before!);
  await fit.click();
  await expect(canvas).toHaveAttribute('data-camera', before!);
  await page.keyboard.press('?');
  await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeVisible();
  await screenshot(page, '07-help');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
});

test('several images per session: sample, paste, drop; the session survives a reload', async ({ page }) => {
  await openSample(page, 'Chelsea the cat');
  // Paste an image from the clipboard.
  await page.evaluate(async () => {
    const blob = await (await fetch('/samples/astronaut.png')).blob();
    const data = new DataTransfer();
    data.items.add(new File([blob], 'astronaut.png', { type: 'image/png' }));
    window.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data }));
  });
  // Drop a file onto the studio.
  const drop = await page.evaluateHandle(async () => {
    const blob = await (await fetch('/samples/rocket.jpg')).blob();
    const data = new DataTransfer();
    data.items.add(new File([blob], 'rocket.jpg', { type: 'image/jpeg' }));
    return data;
  });
  await page.locator('.studio').dispatchEvent('drop', { dataTransfer: drop });

  const session = page.getByRole('complementary', { name: 'Images' }).getByRole('listitem');
  await expect(session.filter({ hasText: /chelsea|astronaut|rocket/ })).toHaveCount(3);
  await expect(page.getByRole('button', { name: /^rocket\.jpg/ })).toHaveAttribute('aria-current', 'true');
  await page.getByRole('button', { name: /^chelsea\.png/ }).click();
  await expect(page.getByRole('button', { name: /^chelsea\.png/ })).toHaveAttribute('aria-current', 'true');
  await screenshot(page, '08-several-images');

  // Closing an image is one more undoable change.
  await page.getByRole('button', { name: 'Close astronaut.png' }).click();
  await expect(session.filter({ hasText: /chelsea|astronaut|rocket/ })).toHaveCount(2);
  await page.keyboard.press('Control+z');
  await expect(session.filter({ hasText: /chelsea|astronaut|rocket/ })).toHaveCount(3);

  await page.waitForTimeout(800); // the session is saved shortly after each change
  await page.reload();
  await expect(session.filter({ hasText: /chelsea|astronaut|rocket/ })).toHaveCount(3);
  await expect(page.getByRole('button', { name: /^chelsea\.png/ })).toHaveAttribute('aria-current', 'true');
});

test('a box plus points: the box stays while a point refines; colour, hide and delete an object, each undoable', async ({ page }) => {
  await openSample(page, 'Coffee cup');
  await waitForEncoder(page);

  // A CENTER-anchored box around cup and saucer…
  await page.getByRole('button', { name: 'Box', exact: true }).click();
  const from = await imageToPage(page, 300, 240);
  const to = await imageToPage(page, 300 + 190, 240 + 140);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 6 });
  await page.mouse.up();
  const candidates = page.getByRole('radiogroup', { name: 'Mask candidates' }).getByRole('radio');
  await expect(candidates.first()).toBeVisible();
  await expect(page.locator('.chip.box')).toBeVisible();

  // …then points on top of it: the box is kept and both go to the decoder together.
  await page.getByRole('button', { name: 'Positive point', exact: true }).click();
  await clickImage(page, 300, 235);
  await expect(page.locator('.chip.box')).toBeVisible();
  await expect(page.locator('.chip.positive')).toHaveText('1 positive');
  await clickImage(page, 470, 330, 'right');
  await expect(page.locator('.chip.negative')).toHaveText('1 negative');
  await expect(page.locator('.chip.box')).toBeVisible();
  await expect(candidates.first()).toBeVisible();
  await screenshot(page, '07-box-plus-points');
  await page.getByRole('button', { name: 'Accept object' }).click();
  const row = page.getByTestId('object-row');
  await expect(row).toHaveCount(1);

  // Colour, visibility and deletion are document changes: each one is undone by one Undo.
  const undo = page.getByRole('button', { name: 'Undo', exact: true });
  const colour = page.getByLabel('Colour of object 1');
  const before = await colour.inputValue();
  await colour.fill('#00ff00');
  await expect(colour).toHaveValue('#00ff00');
  await page.getByRole('button', { name: 'Hide object 1' }).click();
  await expect(row).toHaveClass(/hidden-object/);
  await expect(page.getByRole('button', { name: 'Show object 1' })).toHaveAttribute('aria-pressed', 'true');
  await screenshot(page, '08-object-hidden');
  await page.getByRole('button', { name: 'Delete object 1' }).click();
  await expect(row).toHaveCount(0);

  await undo.click();
  await expect(row).toHaveCount(1);
  await expect(row).toHaveClass(/hidden-object/);
  await undo.click();
  await expect(row).not.toHaveClass(/hidden-object/);
  await undo.click();
  await expect(colour).toHaveValue(before);
});
