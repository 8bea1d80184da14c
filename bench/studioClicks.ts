/**
 * Perceived click latency in the studio itself (not the bench page): a person moves the cursor onto
 * the object, it rests, they click. Measured from the click's pointerdown to the frame that draws
 * the answer (the studio's `maskwright:mask-on-screen` mark: its early mask, or its polygons if those
 * come first), so it includes the hover decode's head start, the worker round trip and the drawing.
 * Each click starts a fresh prompt (Escape), as a first click on a new object does.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { MASK_ON_SCREEN_MARK } from '../src/app/components/maskOnScreenMark';
import type { BenchClick } from './clicks';

export interface StudioClickTimes {
  /** The cursor rested `restMs` on the spot before the click. */
  rested: number[];
  /** The cursor arrived and clicked at once (no hover decode to reuse). */
  unrested: number[];
  restMs: number;
}

/** Image pixels → page pixels, from the camera the canvas publishes. */
async function pageAt(page: Page, click: BenchClick): Promise<{ x: number; y: number }> {
  const host = page.getByTestId('canvas');
  const box = await host.boundingBox();
  const camera = (await host.getAttribute('data-camera'))!.split(',').map(Number);
  if (!box) throw new Error('studio canvas not visible');
  return { x: box.x + click.x * camera[0] + camera[1], y: box.y + click.y * camera[0] + camera[2] };
}

async function timedClick(page: Page, click: BenchClick, restMs: number): Promise<number> {
  await page.keyboard.press('Escape');
  const at = await pageAt(page, click);
  // Arrive from a little way off, as a hand does, so the studio sees the cursor move onto the spot.
  await page.mouse.move(at.x - 40, at.y - 10);
  await page.evaluate(() => {
    performance.clearMarks();
    const w = window as unknown as { benchPointerDown?: number };
    w.benchPointerDown = undefined;
    addEventListener('pointerdown', (e) => (w.benchPointerDown = e.timeStamp), { capture: true, once: true });
  });
  await page.mouse.move(at.x, at.y, { steps: 4 });
  if (restMs > 0) await page.waitForTimeout(restMs);
  await page.mouse.down();
  await page.mouse.up();
  // A string, not a function: tsx's name-keeping helper does not exist in the page.
  return page.evaluate(`new Promise((resolve, reject) => {
    const deadline = performance.now() + 60000;
    const look = () => {
      const down = window.benchPointerDown;
      const drawn = down === undefined ? undefined : performance.getEntriesByName(${JSON.stringify(MASK_ON_SCREEN_MARK)}).find((e) => e.startTime >= down);
      if (drawn) resolve(drawn.startTime - down);
      else if (performance.now() > deadline) reject(new Error('no mask on screen within 60 s of the click'));
      else setTimeout(look, 2);
    };
    look();
  })`) as Promise<number>;
}

/**
 * Opens the studio at `base`, the "Coffee cup" sample (the bench's coffee.png), waits for the encoder,
 * then clicks each point `warmup` times unmeasured and alternates rested and unrested clicks.
 */
export async function studioClickLatency(browser: BrowserContext, base: string, clicks: readonly BenchClick[], options: { warmup: number; restMs: number }): Promise<StudioClickTimes> {
  const page = await browser.newPage();
  try {
    await page.goto(`${base}/`);
    await page.getByRole('button', { name: 'Sample: Coffee cup' }).click();
    await page.getByTestId('engine-phase').filter({ hasText: 'Ready' }).waitFor({ timeout: 300_000 });
    for (let i = 0; i < options.warmup; i++) await timedClick(page, clicks[i % clicks.length], options.restMs);
    const times: StudioClickTimes = { rested: [], unrested: [], restMs: options.restMs };
    for (const [i, click] of clicks.entries()) {
      // Alternating which goes first, so neither always follows the other.
      const order = i % 2 === 0 ? (['rested', 'unrested'] as const) : (['unrested', 'rested'] as const);
      for (const kind of order) times[kind].push(await timedClick(page, click, kind === 'rested' ? options.restMs : 0));
    }
    return times;
  } finally {
    await page.close();
  }
}
