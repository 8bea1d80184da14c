import { expect, test, type Locator, type Page } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { download, imageToPage, openMenu, screenshot, startFresh, waitForEncoder } from './appHelpers';
import { makePeoplePhotos, type PeoplePhoto, type PlacedPerson } from './peoplePhotos';

/**
 * Review throughput (issue 26): every person on 5 photos labelled "person", once by hand (a click
 * on each person with the point tool, the whole-person mask picked, Enter) and once by "Label all"
 * plus the review queue. Every click and key press the user makes is counted; opening the photos is
 * the same in both and not counted. Label all plus review must take fewer than half the actions.
 * Real models, production build, real Chromium.
 */

test.describe.configure({ mode: 'serial' });

/** Counts what the user does: each click (a drag would be one too) and each key press, by what it was for. */
class UserActions {
  clicks = 0;
  keys = 0;
  private readonly purposes = new Map<string, number>();
  constructor(private readonly page: Page) {}
  get total(): number {
    return this.clicks + this.keys;
  }
  /** "click on a person 14, Enter 14, …": what the actions were spent on. */
  get breakdown(): string {
    return [...this.purposes].map(([purpose, n]) => `${purpose} ${n}`).join(', ');
  }
  private count(purpose: string, n: number): void {
    this.purposes.set(purpose, (this.purposes.get(purpose) ?? 0) + n);
  }
  async click(target: Locator, purpose: string): Promise<void> {
    this.clicks++;
    this.count(purpose, 1);
    await target.click();
  }
  async clickImage(x: number, y: number, purpose: string): Promise<void> {
    const at = await imageToPage(this.page, x, y);
    this.clicks++;
    this.count(purpose, 1);
    await this.page.mouse.click(at.x, at.y);
  }
  async press(key: string, purpose = key): Promise<void> {
    this.keys++;
    this.count(purpose, 1);
    await this.page.keyboard.press(key);
  }
  async type(text: string, purpose: string): Promise<void> {
    this.keys += text.length;
    this.count(purpose, text.length);
    await this.page.keyboard.type(text);
  }
}

type Box = readonly [x0: number, y0: number, x1: number, y1: number];

const boxOfPerson = (p: PlacedPerson): Box => [p.left, p.top, p.left + p.width, p.top + p.height];
const boxOfCoco = ([x, y, w, h]: readonly number[]): Box => [x, y, x + w, y + h];

function iou(a: Box, b: Box): number {
  const w = Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0]));
  const h = Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
  const inter = w * h;
  const union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
  return union > 0 ? inter / union : 0;
}

/** An object is this person when its box and the pasted astronaut's agree this closely (a part — the suit, the head — does not). */
const SAME_PERSON = 0.85;

/** Where a user clicks on a person: the suit, then (if its mask is still not the whole person) the face. */
function clickPoints(p: PlacedPerson): Array<[number, number]> {
  const at = (rx: number, ry: number): [number, number] => [p.left + (p.mirrored ? 1 - rx : rx) * p.width, p.top + ry * p.height];
  return [at(0.52, 0.74), at(0.59, 0.22), at(0.45, 0.55)];
}

type Coco = {
  images: Array<{ id: number; file_name: string }>;
  annotations: Array<{ image_id: number; category_id: number; bbox: number[]; attributes?: { score?: number; label?: string; review_state?: string } }>;
  categories: Array<{ id: number; name: string }>;
};

interface Annotation {
  readonly image: string;
  readonly category: string;
  readonly box: Box;
  readonly label: string;
  readonly score: number;
  readonly state: string;
}

/** The session as COCO (what the test sees; not a user action): accepted objects, or proposals too. */
async function exported(page: Page, withProposals: boolean): Promise<Annotation[]> {
  const dialog = await openMenu(page, 'Export');
  await dialog.getByRole('checkbox', { name: 'Include proposals not yet reviewed' }).setChecked(withProposals);
  const coco = JSON.parse((await download(page, 'COCO JSON (whole session)')).toString('utf8')) as Coco;
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  const imageName = new Map(coco.images.map((i) => [i.id, i.file_name]));
  const categoryName = new Map(coco.categories.map((c) => [c.id, c.name]));
  return coco.annotations.map((a) => ({
    image: imageName.get(a.image_id)!,
    category: categoryName.get(a.category_id)!,
    box: boxOfCoco(a.bbox),
    label: a.attributes?.label ?? '',
    score: a.attributes?.score ?? 1,
    state: a.attributes?.review_state ?? 'accepted',
  }));
}

/** Pairs each placed person with the best still-free annotation that is that person; the rest are unmatched. */
function matchPeople(photo: PeoplePhoto, annotations: readonly Annotation[]) {
  const free = annotations.filter((a) => a.image === photo.name);
  const missed: PlacedPerson[] = [];
  const matched: Annotation[] = [];
  for (const person of photo.people) {
    const best = free
      .map((a) => ({ a, overlap: a.category === 'person' ? iou(a.box, boxOfPerson(person)) : 0 }))
      .sort((x, y) => y.overlap - x.overlap)[0];
    if (best && best.overlap >= SAME_PERSON) {
      matched.push(best.a);
      free.splice(free.indexOf(best.a), 1);
    } else missed.push(person);
  }
  return { matched, missed, extra: free };
}

/** Every photo holds exactly one accepted "person" per pasted person, and nothing else; nothing is left to review. */
async function expectEveryPersonLabelled(page: Page, photos: readonly PeoplePhoto[]): Promise<void> {
  const accepted = await exported(page, false);
  for (const photo of photos) {
    const { missed, extra } = matchPeople(photo, accepted);
    expect(missed, `${photo.name}: people not labelled`).toEqual([]);
    expect(extra, `${photo.name}: objects that are no person placed there`).toEqual([]);
  }
  expect(accepted.every((a) => a.state === 'accepted')).toBe(true);
  const withProposals = await exported(page, true);
  expect(withProposals.length, 'proposals left to review').toBe(accepted.length);
}

const thumb = (page: Page, name: string) => page.locator('.thumb', { has: page.locator('.thumb-name', { hasText: new RegExp(`^${name.replace('.', '\\.')}$`) }) });

async function openPhotos(page: Page, photos: readonly PeoplePhoto[]): Promise<void> {
  await page.getByLabel('Open image').setInputFiles(photos.map((p) => p.file));
  for (const photo of photos) await expect(thumb(page, photo.name)).toBeVisible();
  await expect(page.getByTestId('canvas')).toHaveAttribute('data-camera', /\d/);
  await waitForEncoder(page);
}

async function showPhoto(page: Page, actions: UserActions, photo: PeoplePhoto): Promise<void> {
  const item = thumb(page, photo.name);
  if ((await item.getAttribute('aria-current')) !== 'true') await actions.click(item, 'click on a photo in the list');
  await expect(item).toHaveAttribute('aria-current', 'true');
  await expect(page.getByTestId('canvas')).toHaveAttribute('data-camera', /\d/);
}

/** The box of each mask candidate the panel shows, read from its thumbnail's outline (what the user looks at). */
async function candidateBoxes(page: Page): Promise<Box[]> {
  return page
    .getByRole('radiogroup', { name: 'Mask candidates' })
    .getByRole('radio')
    .evaluateAll((radios) =>
      radios.map((radio) => {
        const numbers = (radio.querySelector('path')?.getAttribute('d') ?? '').match(/-?\d+(\.\d+)?/g)?.map(Number) ?? [];
        const box = [Infinity, Infinity, -Infinity, -Infinity];
        for (let i = 0; i + 1 < numbers.length; i += 2) {
          box[0] = Math.min(box[0], numbers[i]);
          box[1] = Math.min(box[1], numbers[i + 1]);
          box[2] = Math.max(box[2], numbers[i]);
          box[3] = Math.max(box[3], numbers[i + 1]);
        }
        return box as unknown as readonly [number, number, number, number];
      }),
    );
}

/**
 * One person by hand, as a user of the studio does it: a positive click on the person with the
 * point tool (P first if another tool is on), a look at the candidates once the mask has settled
 * (the mirror pass while the user pauses), a click on the one that is the whole person if another
 * is selected — or one more click on the person if none is — and Enter.
 */
async function labelByHand(page: Page, actions: UserActions, person: PlacedPerson): Promise<void> {
  const pointTool = page.getByRole('toolbar', { name: 'Tools' }).getByRole('button', { name: 'Positive point' });
  if ((await pointTool.getAttribute('aria-pressed')) !== 'true') await actions.press('p', 'P (the point tool)');
  await expect(pointTool).toHaveAttribute('aria-pressed', 'true');
  const rows = page.getByTestId('object-row');
  const before = await rows.count();
  const candidates = page.getByRole('radiogroup', { name: 'Mask candidates' }).getByRole('radio');
  for (const [x, y] of clickPoints(person)) {
    await actions.clickImage(x, y, 'click on a person');
    await expect(candidates.first()).toBeVisible({ timeout: 120_000 });
    await expect(page.getByTestId('mirror-passed')).toBeVisible({ timeout: 120_000 });
    const overlaps = (await candidateBoxes(page)).map((box) => iou(box, boxOfPerson(person)));
    const best = overlaps.indexOf(Math.max(...overlaps));
    if (overlaps[best] < SAME_PERSON) continue;
    if ((await candidates.nth(best).getAttribute('aria-checked')) !== 'true') await actions.click(candidates.nth(best), 'click on the whole-person candidate');
    await actions.press('Enter', 'Enter (accept)');
    await expect(rows).toHaveCount(before + 1);
    return;
  }
  throw new Error(`no mask of the person at ${person.left},${person.top} after ${clickPoints(person).length} clicks`);
}

/** The class "person", made and picked from the Classes panel (new objects take the current class). */
async function usePersonClass(page: Page, actions: UserActions): Promise<void> {
  const classes = page.getByRole('region', { name: 'Classes' });
  const use = classes.getByRole('button', { name: /^Use class person/ });
  if ((await use.count()) === 0) {
    await actions.click(classes.getByRole('button', { name: 'Add class' }), 'making the class person');
    const name = classes.getByLabel(/^Name of class /).last();
    await actions.click(name, 'making the class person');
    await actions.press('Control+a', 'making the class person');
    await actions.type('person', 'making the class person');
    await actions.press('Enter', 'making the class person');
    await expect(use).toHaveCount(1);
  }
  if ((await use.getAttribute('aria-pressed')) !== 'true') await actions.click(use, 'picking the class person');
  await expect(use).toHaveAttribute('aria-pressed', 'true');
}

let photos: PeoplePhoto[] = [];
let photoDir = '';
const counts: { byHand?: UserActions } = {};

test.beforeAll(async () => {
  photoDir = mkdtempSync(path.join(os.tmpdir(), 'maskwright-people-'));
  photos = await makePeoplePhotos(photoDir);
});

test.afterAll(() => rmSync(photoDir, { recursive: true, force: true }));

test.beforeEach(async ({ page }) => startFresh(page));

test('by hand: a click on each person, the whole-person mask, Enter — every click and key counted', async ({ page }) => {
  test.setTimeout(20 * 60_000);
  await openPhotos(page, photos);
  const actions = new UserActions(page);
  await usePersonClass(page, actions);
  // The photo on screen first, then the others in the list's order.
  const shown = (await page.locator('.thumb[aria-current="true"] .thumb-name').textContent())!;
  const order = [...photos].sort((a, b) => Number(b.name === shown) - Number(a.name === shown));
  for (const photo of order) {
    await showPhoto(page, actions, photo);
    for (const person of photo.people) await labelByHand(page, actions, person);
  }
  await screenshot(page, 'throughput-01-by-hand');
  await expectEveryPersonLabelled(page, photos);
  counts.byHand = actions;
  console.log(`review throughput: by hand ${actions.total} actions (${actions.clicks} clicks + ${actions.keys} keys) for ${photos.reduce((n, p) => n + p.people.length, 0)} people on ${photos.length} photos: ${actions.breakdown}`);
});

test('label all "person" plus keyboard review takes fewer than half the actions of labelling by hand', async ({ page }) => {
  test.setTimeout(20 * 60_000);
  expect(counts.byHand, 'the by-hand test runs first').toBeDefined();
  await openPhotos(page, photos);
  const actions = new UserActions(page);

  // Label all: the text tool (T), the prompt typed, the button.
  await actions.press('t', 'typing the prompt');
  const form = page.getByRole('form', { name: 'Text prompt' });
  await actions.click(form.getByRole('textbox'), 'typing the prompt');
  await actions.type('person', 'typing the prompt');
  const labelAll = page.getByRole('group', { name: 'Label all images' });
  await actions.click(labelAll.getByRole('button', { name: `Label all ${photos.length} open images` }), 'Label all');
  await expect(labelAll.getByTestId('label-all-progress')).toContainText(`Done: ${photos.length} of ${photos.length} images`, { timeout: 15 * 60_000 });
  await screenshot(page, 'throughput-02-label-all');

  // What the reviewer's eyes tell apart (read from an export, not a user action): each proposal
  // that is one of the pasted people, the first for that person; any other is false.
  const proposals = (await exported(page, true)).filter((a) => a.state === 'unreviewed');
  const falseProposals = photos.flatMap((photo) => matchPeople(photo, [...proposals].sort((a, b) => b.score - a.score)).extra);
  // The panel shows a proposal's image, label and confidence in whole percent (the export's score is rounded to 0.01).
  const isFalse = (image: string, label: string, percent: number) => falseProposals.some((a) => a.image === image && a.label === label && Math.abs(a.score * 100 - percent) <= 1);
  const found = proposals.length - falseProposals.length;
  const people = photos.reduce((n, p) => n + p.people.length, 0);
  console.log(`review throughput: label all proposed ${proposals.length} (${found} of ${people} people found, ${falseProposals.length} false)`);

  // Review from the keyboard: R opens the queue; Shift+Y accepts everything at or above the panel's
  // confidence when nothing false is among those; the rest one by one, Y to accept, Delete to reject.
  const beforeReview = actions.total;
  await actions.press('r', 'R (open Review)');
  const panel = page.getByRole('region', { name: 'Review' });
  await expect(panel).toBeVisible();
  const threshold = Number(/Confidence at least (\d+) %/.exec((await panel.textContent())!)![1]) / 100;
  const falseAbove = falseProposals.some((a) => a.score >= threshold);
  const count = page.getByTestId('review-count');
  if (!falseAbove && proposals.some((a) => a.score >= threshold)) {
    const all = (await count.textContent())!;
    await actions.press('Shift+Y', 'Shift+Y (accept all ≥ the confidence)');
    await expect(count).not.toHaveText(all);
  }
  while ((await count.textContent()) !== '0 to review') {
    const left = Number(/^(\d+)/.exec((await count.textContent())!)![1]);
    const shown = (await page.getByTestId('review-current').textContent())!;
    // "person 3 · person · 74% · text prompt · 1 of 3 · people-coffee.png"
    const parts = shown.split(' · ');
    const percent = Number(parts.find((part) => /^\d+%$/.test(part))!.replace('%', ''));
    if (isFalse(parts.at(-1)!, parts[0], percent)) await actions.press('Delete', 'Delete (reject)');
    else await actions.press('y', 'Y (accept)');
    await expect(count).toHaveText(`${left - 1} to review`);
  }
  await screenshot(page, 'throughput-03-reviewed');
  const reviewActions = actions.total - beforeReview;

  // Anyone label all missed is labelled by hand, and counted.
  const accepted = await exported(page, false);
  for (const photo of photos) {
    const { missed } = matchPeople(photo, accepted);
    if (missed.length === 0) continue;
    await usePersonClass(page, actions);
    await showPhoto(page, actions, photo);
    for (const person of missed) await labelByHand(page, actions, person);
  }

  await expectEveryPersonLabelled(page, photos);
  const byHand = counts.byHand!;
  // For the record: a review deciding each proposal with its own key (no Shift+Y) would have taken R + one key per proposal.
  const oneKeyEach = actions.total - reviewActions + 1 + proposals.length;
  console.log(
    `review throughput: label all + review ${actions.total} actions (${actions.clicks} clicks + ${actions.keys} keys, ${reviewActions} of them reviewing) ` +
      `vs by hand ${byHand.total} (${byHand.clicks} clicks + ${byHand.keys} keys); label all + review: ${actions.breakdown}; deciding each proposal with its own key would have taken ${oneKeyEach}`,
  );
  expect(actions.total * 2).toBeLessThan(byHand.total);
});
