import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import type { Vertex } from '../src/engine/types';
import { fillPolygons } from '../src/annotations/rasterize';
import { readZip, writeZip } from '../src/annotations/formats/zip';
import { pngMasksZip } from '../src/annotations/formats/pngMasks';
import { sessionDataset } from '../src/annotations/formats/dataset';
import type { Annotation } from '../src/annotations/annotation';
import { emptyMask, maskArea, maskIoU, paintStroke } from '../src/app/geometry/maskPaint';
import { clickImage, download, imageToPage, openMenu, openSample, screenshot, stroke, waitForEncoder } from './appHelpers';

/**
 * Finishing an annotation job by hand (issue 13): select and refine, brush and eraser, vertices,
 * classes with keys, whole-session exports read back, and import into a fresh session. Real model,
 * production build, real Chromium.
 */

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await page.evaluate(() => indexedDB.deleteDatabase('maskwright'));
  await page.evaluate(() => localStorage.clear());
  await page.reload();
});

const rows = (page: Page) => page.getByTestId('object-row');
const areaOf = async (page: Page, index = 0) => Number(await rows(page).nth(index).getAttribute('data-area'));
const vertexCount = async (page: Page) => Number((await rows(page).first().textContent())!.match(/(\d+) vertices/)![1]);

type Coco = {
  images: Array<{ id: number; file_name: string; width: number; height: number }>;
  annotations: Array<{ image_id: number; category_id: number; segmentation: number[][]; area: number; bbox: number[]; iscrowd: number }>;
  categories: Array<{ id: number; name: string }>;
};

const exportCoco = async (page: Page): Promise<Coco> => JSON.parse((await download(page, 'COCO JSON (whole session)')).toString('utf8'));

/** Drags the mouse along image-pixel points; returns the path as the canvas saw it (image pixels). */
async function acceptCup(page: Page) {
  await clickImage(page, 300, 235);
  await expect(page.getByRole('radiogroup', { name: 'Mask candidates' }).getByRole('radio').first()).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(rows(page)).toHaveCount(1);
}

test('select an accepted object and refine it with a negative point; undo and redo', async ({ page }) => {
  await openSample(page, 'Coffee cup');
  await waitForEncoder(page);
  await acceptCup(page);
  const before = await areaOf(page);

  await page.keyboard.press('v');
  await expect(page.getByRole('button', { name: 'Select', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await clickImage(page, 300, 235);
  const objectId = await rows(page).first().getAttribute('data-object-id');
  await expect(page.getByTestId('canvas')).toHaveAttribute('data-selection', objectId!);
  await screenshot(page, 'edit-01-selected');

  // A negative point on the saucer continues from the object's own click and logits.
  await page.keyboard.press('n');
  await clickImage(page, 150, 330);
  await expect(page.locator('.chip.negative')).toHaveText('1 negative');
  await expect(page.locator('.chip.positive')).toHaveText('1 positive');
  await expect(page.getByRole('radiogroup', { name: 'Mask candidates' }).getByRole('radio').first()).toBeVisible();
  await screenshot(page, 'edit-02-refine-negative');
  await page.keyboard.press('Enter');
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toHaveAttribute('data-object-id', objectId!);
  const after = await areaOf(page);
  expect(after).not.toBe(before);
  await screenshot(page, 'edit-03-refined');

  await page.keyboard.press('Control+z');
  await expect.poll(() => areaOf(page)).toBe(before);
  await page.keyboard.press('Control+Shift+Z');
  await expect.poll(() => areaOf(page)).toBe(after);
});

test('brush a missed part in and erase a leak: the exported area changes by what was painted', async ({ page }) => {
  await openSample(page, 'Coffee cup');
  await waitForEncoder(page);
  await acceptCup(page);
  await page.keyboard.press('v');
  await clickImage(page, 300, 235);
  const start = (await exportCoco(page)).annotations[0].area;
  // The list shows the area every export writes: the filled outline's (export/objectGeometry.ts).
  const startListed = await areaOf(page);
  expect(startListed).toBe(start);

  await page.keyboard.press('b');
  await expect(page.getByRole('button', { name: 'Brush', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await page.getByRole('slider', { name: 'Brush size' }).fill('20');
  await page.keyboard.press(']');
  await page.keyboard.press('[');
  await expect(page.getByTestId('brush-size')).toHaveText('20 px');
  // A strip in the empty top-left corner, away from the cup: what it adds is exactly the brush's sweep.
  const painted: Vertex[] = [
    [40, 40],
    [100, 40],
  ];
  await stroke(page, painted);
  const expectedAdded = maskArea(paintStroke(emptyMask(600, 400), painted, 10, 1));
  const brushed = (await exportCoco(page)).annotations[0].area;
  expect(Math.abs(brushed - start - expectedAdded) / expectedAdded).toBeLessThan(0.08);
  const brushedListed = await areaOf(page);
  expect(brushedListed).toBe(brushed);
  await screenshot(page, 'edit-04-brushed');

  await page.keyboard.press('e');
  const erased: Vertex[] = [
    [40, 40],
    [70, 40],
  ];
  await stroke(page, erased);
  const expectedRemoved = maskArea(paintStroke(emptyMask(600, 400), erased, 10, 1));
  const afterErase = (await exportCoco(page)).annotations[0].area;
  expect(Math.abs(brushed - afterErase - expectedRemoved) / expectedRemoved).toBeLessThan(0.1);
  const afterEraseListed = await areaOf(page);
  await screenshot(page, 'edit-05-erased');

  // Each stroke is one undo step.
  await page.keyboard.press('Control+z');
  await expect.poll(() => areaOf(page)).toBe(brushedListed);
  await page.keyboard.press('Control+z');
  await expect.poll(() => areaOf(page)).toBe(startListed);
  await page.keyboard.press('Control+y');
  await page.keyboard.press('Control+y');
  await expect.poll(() => areaOf(page)).toBe(afterEraseListed);
});

test('vertices: drag one, insert one on an edge, delete one; undo and redo', async ({ page }) => {
  await openSample(page, 'Chelsea the cat');
  // A round object painted by hand (nothing selected: the brush makes a new object).
  await page.getByRole('button', { name: 'Brush', exact: true }).click();
  await page.getByRole('slider', { name: 'Brush size' }).fill('80');
  await stroke(page, [
    [220, 150],
    [221, 150],
  ]);
  await expect(rows(page)).toHaveCount(1);
  await page.getByRole('button', { name: 'Select', exact: true }).click();
  const flat = (await exportCoco(page)).annotations[0].segmentation[0];
  const ring: Vertex[] = flat.flatMap((_, i) => (i % 2 ? [] : [[flat[i], flat[i + 1]] as Vertex]));
  // The vertex farthest from its neighbours, so its handle is the only one under the mouse.
  const gap = (i: number) => Math.min(...[ring[(i + 1) % ring.length], ring[(i + ring.length - 1) % ring.length]].map((n) => Math.hypot(n[0] - ring[i][0], n[1] - ring[i][1])));
  const index = ring.reduce((best, _, i) => (gap(i) > gap(best) ? i : best), 0);
  const [x0, y0] = ring[index];
  // Pull it 60 px further out from the centre: the area grows.
  const length = Math.hypot(x0 - 220.5, y0 - 150.5);
  const target: Vertex = [x0 + ((x0 - 220.5) / length) * 60, y0 + ((y0 - 150.5) / length) * 60];
  const before = await areaOf(page);
  await stroke(page, [[x0, y0], target]);
  await expect.poll(() => areaOf(page)).toBeGreaterThan(before + 200);
  const dragged = await areaOf(page);
  const movedRing = (await exportCoco(page)).annotations[0].segmentation[0];
  expect(Math.hypot(movedRing[2 * index] - target[0], movedRing[2 * index + 1] - target[1])).toBeLessThan(2);
  await screenshot(page, 'edit-06-vertex-dragged');

  // Double-click the middle of the first edge: one more vertex.
  const vertices = await vertexCount(page);
  // The edge from the dragged vertex to the next one: long, so its middle is far from any handle.
  const next = (2 * index + 2) % movedRing.length;
  const middle = await imageToPage(page, (movedRing[2 * index] + movedRing[next]) / 2, (movedRing[2 * index + 1] + movedRing[next + 1]) / 2);
  await page.mouse.dblclick(middle.x, middle.y);
  await expect.poll(() => vertexCount(page)).toBe(vertices + 1);
  await screenshot(page, 'edit-07-vertex-inserted');
  // Select the new vertex and delete it.
  await page.mouse.click(middle.x, middle.y);
  await page.keyboard.press('Delete');
  await expect.poll(() => vertexCount(page)).toBe(vertices);
  await expect(rows(page)).toHaveCount(1);

  await page.keyboard.press('Control+z'); // delete vertex
  await page.keyboard.press('Control+z'); // insert vertex
  await page.keyboard.press('Control+z'); // drag
  await expect.poll(() => areaOf(page)).toBe(before);
  await page.keyboard.press('Control+y');
  await expect.poll(() => areaOf(page)).toBe(dragged);

  // Delete removes the selected object; Ctrl+D duplicated it first.
  await page.keyboard.press('Control+d');
  await expect(rows(page)).toHaveCount(2);
  await page.keyboard.press('Delete');
  await expect(rows(page)).toHaveCount(1);
});

test('classes: add, rename, pick with keys, reorder, delete with confirmation; a reload keeps classes and edits', async ({ page }) => {
  await openSample(page, 'Coffee cup');
  const classes = page.getByRole('region', { name: 'Classes' });
  await classes.getByRole('button', { name: 'Add class' }).click();
  await classes.getByRole('button', { name: 'Add class' }).click();
  await classes.getByLabel('Name of class class 1').fill('cup');
  await page.keyboard.press('Enter');
  await classes.getByLabel('Name of class class 2').fill('saucer');
  await page.keyboard.press('Enter');

  await page.keyboard.press('2');
  await expect(classes.getByRole('button', { name: 'Use class saucer (key 2)' })).toHaveAttribute('aria-pressed', 'true');
  await waitForEncoder(page);
  await acceptCup(page);
  const objectClass = page.getByLabel('Class of object 1');
  await expect(objectClass).toHaveValue('2');

  // With the object selected, a number key gives it that class.
  await page.keyboard.press('v');
  await clickImage(page, 300, 235);
  await page.keyboard.press('1');
  await expect(objectClass).toHaveValue('1');
  // Reordering changes the keys, never the ids.
  await classes.getByRole('button', { name: 'Move class saucer up' }).click();
  await page.keyboard.press('1');
  await expect(objectClass).toHaveValue('2');
  await expect(classes.getByTestId('class-row').first()).toHaveAttribute('data-class-id', '2');
  await screenshot(page, 'edit-08-classes');

  // Deleting asks first; the object stays, unlabelled; undo brings the class back.
  await classes.getByRole('button', { name: 'Delete class saucer' }).click();
  await expect(classes.getByRole('group', { name: 'Confirm deleting class saucer' })).toBeVisible();
  await screenshot(page, 'edit-09-delete-class-confirm');
  await classes.getByRole('button', { name: 'Delete class', exact: true }).click();
  await expect(rows(page)).toHaveCount(1);
  await expect(objectClass).toHaveValue('');
  await page.keyboard.press('Control+z');
  await expect(objectClass).toHaveValue('2');

  // I then a class's digit tags the whole image (key 2 is cup since the reorder): a chip in the image
  // list, not a row of the object list, and the object keeps its class.
  const imageList = page.getByRole('complementary', { name: 'Images' });
  await page.keyboard.press('i');
  await page.keyboard.press('2');
  await expect(imageList.getByLabel('Tags: cup')).toBeVisible();
  await expect(rows(page)).toHaveCount(1);
  await expect(objectClass).toHaveValue('2');

  // Brush an edit in, then reload: classes, their order, the class of the object and the edit survive.
  await page.keyboard.press('b');
  await page.getByRole('slider', { name: 'Brush size' }).fill('16');
  await stroke(page, [
    [40, 40],
    [90, 40],
  ]);
  const edited = await areaOf(page);
  await page.waitForTimeout(800);
  await page.reload();
  await expect(rows(page)).toHaveCount(1);
  await expect(page.getByTestId('class-row')).toHaveCount(2);
  await expect(page.getByTestId('class-row').first()).toHaveAttribute('data-class-id', '2');
  await expect(page.getByLabel('Class of object 1')).toHaveValue('2');
  await expect(imageList.getByLabel('Tags: cup')).toBeVisible();
  await expect.poll(() => areaOf(page)).toBe(edited);
});

function rasterize(annotation: Coco['annotations'][number], image: { width: number; height: number }) {
  const data = new Uint8Array(image.width * image.height);
  fillPolygons(data, image.width, image.height, [{ outer: [], holes: annotation.segmentation.map((flat) => flat.flatMap((_, i) => (i % 2 ? [] : [[flat[i], flat[i + 1]] as Vertex]))) }], 1);
  return { width: image.width, height: image.height, data };
}

test('whole-session COCO and YOLO exports read back; COCO imported into a fresh session gives the same objects', async ({ page }) => {
  await openSample(page, 'Coffee cup');
  const classes = page.getByRole('region', { name: 'Classes' });
  await classes.getByRole('button', { name: 'Add class' }).click();
  await classes.getByLabel('Name of class class 1').fill('cup');
  await page.keyboard.press('Enter');
  await classes.getByRole('button', { name: 'Add class' }).click();
  await classes.getByLabel('Name of class class 2').fill('cat');
  await page.keyboard.press('Enter');
  await page.keyboard.press('1');
  await waitForEncoder(page);
  await acceptCup(page);

  // The second image: an object painted by hand, class "cat" (key 2); then "cat" is moved first.
  await openSample(page, 'Chelsea the cat');
  await page.keyboard.press('2');
  await page.keyboard.press('b');
  await page.getByRole('slider', { name: 'Brush size' }).fill('60');
  await stroke(page, [
    [150, 120],
    [260, 150],
  ]);
  await expect(rows(page)).toHaveCount(1);
  await classes.getByRole('button', { name: 'Move class cat up' }).click();
  // A and D move between the images.
  await page.keyboard.press('a');
  await expect(page.locator('.thumb[aria-current="true"]')).toContainText('coffee.png');
  await page.keyboard.press('PageDown');
  await expect(page.locator('.thumb[aria-current="true"]')).toContainText('chelsea.png');

  const coco = await exportCoco(page);
  expect(coco.categories.map((c) => [c.id, c.name])).toEqual([
    [1, 'cup'],
    [2, 'cat'],
  ]);
  expect(coco.images.map((i) => i.file_name)).toEqual(['coffee.png', 'chelsea.png']);
  const [cup, cat] = coco.annotations;
  expect([cup.image_id, cup.category_id, cat.image_id, cat.category_id]).toEqual([1, 1, 2, 2]);
  expect(cup.iscrowd).toBe(0);
  // Pixels: the cup spans far more than 1 unit and stays inside the 600×400 photo.
  expect(cup.bbox[2]).toBeGreaterThan(50);
  expect(cup.bbox[0] + cup.bbox[2]).toBeLessThanOrEqual(600);
  expect(Math.max(...cup.segmentation[0])).toBeGreaterThan(1);

  const yolo = await readZip(await download(page, 'YOLO segmentation zip (whole session)'));
  const text = (name: string) => new TextDecoder().decode(yolo.find((f) => f.name === name)!.data);
  expect(text('data.yaml')).toContain('names:\n  0: "cup"\n  1: "cat"\n');
  const coffeeLabels = text('labels/coffee.txt').trim().split('\n');
  const catLabels = text('labels/chelsea.txt').trim().split('\n');
  expect(coffeeLabels.every((l) => l.startsWith('0 '))).toBe(true);
  expect(catLabels.every((l) => l.startsWith('1 '))).toBe(true);
  for (const line of [...coffeeLabels, ...catLabels]) expect(line.split(' ').slice(1).map(Number).every((v) => v >= 0 && v <= 1)).toBe(true);
  await screenshot(page, 'edit-10-exported');

  // The cut-out: the selected object alone on transparency, cropped to its box. The Export menu is
  // closed first: a key typed while its checkbox has the focus belongs to the checkbox, not the tools.
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog', { name: 'Export' })).toBeHidden();
  await page.keyboard.press('v');
  await clickImage(page, 205, 135);
  const cut = PNG.sync.read(await download(page, 'Cut-out of the selected object (PNG)'));
  // The box is the outline's (sub-pixel), the cut-out whole pixels: within a pixel.
  expect(Math.abs(cut.width - cat.bbox[2])).toBeLessThanOrEqual(1);
  expect(Math.abs(cut.height - cat.bbox[3])).toBeLessThanOrEqual(1);
  expect(cut.data[3]).toBe(0); // a corner of the box lies outside the painted stroke
  const centre = (Math.floor(cut.height / 2) * cut.width + Math.floor(cut.width / 2)) * 4;
  expect(cut.data[centre + 3]).toBe(255);

  // A fresh session with no photo open: Import works before any image, opens the photos the zip
  // carries, and brings every object back.
  await page.evaluate(() => indexedDB.deleteDatabase('maskwright'));
  await page.reload();
  const bundle = writeZip([
    { name: 'annotations/session.coco.json', data: new TextEncoder().encode(JSON.stringify(coco)) },
    { name: 'images/chelsea.png', data: readFileSync('public/samples/chelsea.png') },
    { name: 'images/coffee.png', data: readFileSync('public/samples/coffee.png') },
  ]);
  const dialog = await openMenu(page, 'Import');
  await dialog.getByLabel(/Import annotations/).setInputFiles({ name: 'session.zip', mimeType: 'application/zip', buffer: Buffer.from(bundle) });
  await expect(page.getByTestId('import-report')).toContainText('2 objects imported. 2 images opened from the file.');
  await expect(page.getByTestId('class-row')).toHaveCount(2);
  await screenshot(page, 'edit-11-imported');
  // The same file again adds nothing.
  await dialog.getByLabel(/Import annotations/).setInputFiles({ name: 'session.coco.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(coco)) });
  await expect(page.getByTestId('import-report')).toContainText('0 objects imported. 2 already present, not added again.');

  const again = await exportCoco(page);
  const size = (c: Coco, imageId: number) => c.images.find((i) => i.id === imageId)!;
  for (const original of coco.annotations) {
    const name = size(coco, original.image_id).file_name;
    const back = again.annotations.find((a) => size(again, a.image_id).file_name === name)!;
    expect(again.categories.find((c) => c.id === back.category_id)!.name).toBe(coco.categories.find((c) => c.id === original.category_id)!.name);
    const image = size(coco, original.image_id);
    expect(maskIoU(rasterize(original, image), rasterize(back, image))).toBeGreaterThanOrEqual(0.99);
  }

  // A file naming an image that is not open is listed, not dropped silently.
  const stray = { ...coco, images: [{ ...coco.images[0], file_name: 'elsewhere.png' }], annotations: [coco.annotations[0]] };
  const importDialog = await openMenu(page, 'Import');
  await importDialog.getByLabel(/Import annotations/).setInputFiles({ name: 'stray.coco.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(stray)) });
  await expect(page.getByRole('list', { name: 'Not imported' })).toContainText('elsewhere.png: no open image of that name (1 annotation)');
});

test('the studio reads its own PNG masks zip: the mask PNGs become objects, only the photo opens', async ({ page }) => {
  // Two bottles inside a refrigerator listed after them (issue 39): painted largest first, all three come back.
  const rect = (x: number, y: number, w: number, h: number): Vertex[] => [[x, y], [x + w, y], [x + w, y + h], [x, y + h]];
  const object = (id: string, classId: number, outer: Vertex[]): Annotation => ({ id, label: id, classId, confidence: 1, color: '#888888', visible: true, source: 'local', polygons: [{ outer, holes: [] }] });
  const coffee = { id: 'coffee', name: 'coffee.png', width: 600, height: 400 };
  const classes = [{ id: 5, name: 'bottle', color: '#ff0000' }, { id: 7, name: 'refrigerator', color: '#00ff00' }];
  const objects = [object('bottle-1', 5, rect(120, 150, 40, 120)), object('bottle-2', 5, rect(200, 150, 40, 120)), object('refrigerator', 7, rect(80, 60, 240, 300))];
  const masks = await readZip(await pngMasksZip(sessionDataset({ images: [coffee], objects: { coffee: objects }, classes }, { includeHidden: true })));
  const bundle = writeZip([...masks, { name: 'coffee.png', data: readFileSync('public/samples/coffee.png') }]);
  const dialog = await openMenu(page, 'Import');
  await dialog.getByLabel(/Import annotations/).setInputFiles({ name: 'maskwright-session.masks.zip', mimeType: 'application/zip', buffer: Buffer.from(bundle) });
  await expect(page.getByTestId('import-report')).toContainText('3 objects imported. 1 image opened from the file.');
  await expect(rows(page)).toHaveCount(3);
  await expect(page.getByTestId('class-row')).toHaveCount(2);
  // The two bottles whole (40 × 120 each); the refrigerator less what they cover, within 0.5 % (its
  // outline, holes included, is traced again from the mask at the Detail slider's tolerance).
  const areas = [await areaOf(page, 0), await areaOf(page, 1), await areaOf(page, 2)].sort((a, b) => a - b);
  expect(areas.slice(0, 2)).toEqual([4800, 4800]);
  expect(Math.abs(areas[2] - (240 * 300 - 2 * 4800)) / (240 * 300 - 2 * 4800)).toBeLessThanOrEqual(0.005);

  // A table under all three (from a COCO file): exported as PNG masks, the menu names what it loses.
  const table = {
    images: [{ id: 1, file_name: 'coffee.png', width: 600, height: 400 }],
    annotations: [{ id: 1, image_id: 1, category_id: 9, segmentation: [[60, 40, 360, 40, 360, 380, 60, 380]], area: 102000, bbox: [60, 40, 300, 340], iscrowd: 0 }],
    categories: [{ id: 9, name: 'table' }],
  };
  await dialog.getByLabel(/Import annotations/).setInputFiles({ name: 'table.coco.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(table)) });
  await expect(page.getByTestId('import-report')).toContainText('1 object imported.');
  const zip = await readZip(await download(page, 'PNG masks zip (whole session)'));
  const exportDialog = page.getByRole('dialog', { name: 'Export' });
  await expect(exportDialog.getByRole('status')).toContainText(/\(table\) keeps \d+ of its 102000 pixels in the masks: smaller objects cover the rest/);
  expect(new TextDecoder().decode(zip.find((f) => f.name === 'NOTES.md')!.data)).toMatch(/\(table\) keeps \d+ of its 102000 pixels/);
});
