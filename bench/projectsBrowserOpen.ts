/**
 * The Chromium leg of bench/projectsBench.ts: the built studio (dist/, served by the bench's own API
 * server process on one origin) opens a shared project through its Project panel, as a person does.
 * Each open is a fresh browser context (an empty profile: no IndexedDB copy, no HTTP cache, like
 * another machine) that logs the account in on the account page, then, in the page, clicks
 * "Open <project>" and counts frames until the image list holds a row for every photo; the time
 * ends at the next requestAnimationFrame after that, i.e. once the frame holding the full list has
 * been painted. A second time ends when the thumbnails of the rows in view have loaded, a third
 * when every row's thumbnail <img> has loaded, the list scrolled down to each row still waiting.
 */
import { chromium, type Browser } from 'playwright-core';

export interface BrowserOpenSample {
  /** ms from the click to the frame after the one where all rows are in the DOM. */
  listPainted: number;
  /** ms from the click until the thumbnails of the rows in view (once the list is painted) have loaded. */
  inViewLoaded: number;
  /** How many rows were in view then. */
  inViewRows: number;
  /** ms from the click until every row's thumbnail has loaded, the list scrolled down as they do. */
  thumbnailsLoaded: number;
}

/**
 * Runs in the page, so it is source text: tsx would wrap named inner functions in a helper that
 * the page does not have. Clicks the button, then looks at every frame. A row is "in view" when its
 * box meets the window and the image list's scrolling box; once those rows' thumbnails have loaded,
 * each frame scrolls the first row whose thumbnail has not into view (as a person scrolling down
 * the list), until all have loaded.
 */
const measureOpen = `window.measureOpen = (button, expected) => new Promise((done, fail) => {
  const rows = () => [...document.querySelectorAll('.image-strip ul.thumbs:not(.samples) > li')];
  const loaded = (row) => { const img = row.querySelector('img'); return Boolean(img && img.complete && img.naturalWidth > 0); };
  const scroller = (element) => {
    for (let e = element.parentElement; e; e = e.parentElement) {
      const overflow = getComputedStyle(e).overflowY;
      if ((overflow === 'auto' || overflow === 'scroll') && e.scrollHeight > e.clientHeight) return e;
    }
    return null;
  };
  const inView = (row) => {
    const box = row.getBoundingClientRect();
    const clip = scroller(row)?.getBoundingClientRect() ?? { top: 0, bottom: innerHeight, left: 0, right: innerWidth };
    return box.bottom > Math.max(0, clip.top) && box.top < Math.min(innerHeight, clip.bottom) && box.right > Math.max(0, clip.left) && box.left < Math.min(innerWidth, clip.right);
  };
  const start = performance.now();
  let listPainted;
  let listInDom = false;
  let inViewLoaded;
  let inViewRows = 0;
  const frame = () => {
    const now = performance.now();
    const all = rows();
    if (now - start > 120000) return fail(new Error('after 120 s: ' + all.length + ' of ' + expected + ' rows, ' + all.filter(loaded).length + ' thumbnails loaded'));
    if (listPainted === undefined) {
      if (listInDom) listPainted = now - start;
      else listInDom = all.length === expected;
    }
    if (listPainted !== undefined) {
      if (inViewLoaded === undefined) {
        const visible = all.filter(inView);
        if (visible.length > 0 && visible.every(loaded)) {
          inViewLoaded = now - start;
          inViewRows = visible.length;
        }
      }
      if (inViewLoaded !== undefined) {
        const waiting = all.find((row) => !loaded(row));
        if (!waiting) return done({ listPainted, inViewLoaded, inViewRows, thumbnailsLoaded: now - start });
        waiting.scrollIntoView({ block: 'end' });
      }
    }
    requestAnimationFrame(frame);
  };
  button.click();
  requestAnimationFrame(frame);
})`;

async function openOnce(browser: Browser, url: string, email: string, password: string, project: string, images: number): Promise<BrowserOpenSample> {
  const context = await browser.newContext({ baseURL: url });
  try {
    const page = await context.newPage();
    await page.goto('/#/account');
    await page.getByRole('tab', { name: 'I have an account' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    await page.getByTestId('balance').filter({ hasText: email }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Studio' }).click();
    const open = page.getByRole('region', { name: 'Project' }).getByRole('button', { name: `Open ${project}`, exact: true });
    await open.waitFor();
    await page.evaluate(measureOpen);
    return await open.evaluate((button, expected) => (window as unknown as { measureOpen: (b: Element, n: number) => Promise<BrowserOpenSample> }).measureOpen(button, expected), images);
  } finally {
    await context.close();
  }
}

/**
 * `opens` timed opens after one warm-up (the server's first reads and thumbnail renderings,
 * Chromium's first start), which is returned apart: the first open of a project after its upload.
 */
export async function timeBrowserOpens(url: string, email: string, password: string, project: string, images: number, opens: number): Promise<{ first: BrowserOpenSample; samples: BrowserOpenSample[] }> {
  const { chromiumLaunch } = await import('../playwright.config');
  const browser = await chromium.launch({ ...chromiumLaunch, headless: true });
  try {
    const first = await openOnce(browser, url, email, password, project, images);
    const samples: BrowserOpenSample[] = [];
    for (let i = 0; i < opens; i++) samples.push(await openOnce(browser, url, email, password, project, images));
    return { first, samples };
  } finally {
    await browser.close();
  }
}
