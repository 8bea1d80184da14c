import { expect, test, type Browser, type Page } from '@playwright/test';
import { brushObject, objectRows, openSample, personSignedUp, removeProjectImage, screenshot, serverProject } from './appHelpers';

/**
 * Live projects (issue 38) in two browser contexts — two members of one project on two machines —
 * against the real API server: neither reloads. Bob, a reviewer, rejects Alice's object and it
 * leaves her list; Alice starts an auto-label job on the server, both see its progress and its
 * proposals arrive; Bob accepts one and Alice sees it accepted; a second job is cancelled from the
 * panel, and both see it cancelled. The status says "Up to date" only
 * once the studio holds what the server holds, "Offline" while the stream is down.
 */

const reviewSelects = (page: Page) => page.getByTestId('object-row').getByRole('combobox', { name: /^Review of/ });

async function openSharedProject(page: Page, name: string): Promise<void> {
  const panel = page.getByRole('region', { name: 'Project' });
  await page.reload();
  const invitation = panel.getByTestId('invitation-row').filter({ hasText: name });
  await invitation.getByRole('button', { name: `Join ${name}` }).click();
  await panel.getByTestId('project-row').filter({ hasText: name }).getByRole('button', { name: `Open ${name}` }).click();
  await expect(panel.getByTestId('project-name')).toHaveText(name);
}

/**
 * Alice and Bob, each on a machine of their own: Alice labels one object on Chelsea, saves the
 * session as a project and shares it with Bob in `role`; Bob has joined and opened it.
 */
async function projectSharedWithBob(browser: Browser, tag: string, role: 'reviewer' | 'annotator') {
  const alice = await personSignedUp(browser, `alice-${tag.toLowerCase()}`);
  const bob = await personSignedUp(browser, `bob-${tag.toLowerCase()}`);
  const name = `${tag} ${Date.now()}`;
  const alicePanel = alice.page.getByRole('region', { name: 'Project' });
  const bobPanel = bob.page.getByRole('region', { name: 'Project' });

  await openSample(alice.page, 'Chelsea the cat');
  await brushObject(alice.page, 60, 260);
  await expect(await objectRows(alice.page)).toHaveCount(1);
  await alicePanel.getByLabel('Project name').fill(name);
  await alicePanel.getByRole('button', { name: 'Save session as project' }).click();
  await expect(alicePanel.getByTestId('sync-state')).toHaveText('Up to date');
  await expect(alice.page.getByTestId('project-status')).toHaveText(`Project ${name}: Up to date`);
  await alicePanel.getByLabel('Share with (email)').fill(bob.email);
  await alicePanel.getByLabel('Role').selectOption(role);
  await alicePanel.getByRole('button', { name: 'Share' }).click();
  await expect(alicePanel.getByText(`Shared with ${bob.email} as ${role}.`)).toBeVisible();

  await openSharedProject(bob.page, name);
  await expect(await objectRows(bob.page)).toHaveCount(1);
  await expect(bobPanel.getByTestId('sync-state')).toHaveText('Up to date');
  return { alice, bob, name, alicePanel, bobPanel };
}

test("two members see each other's reviews and a job's proposals without reloading; the status tells the truth", async ({ browser }) => {
  const { alice, bob, alicePanel, bobPanel } = await projectSharedWithBob(browser, 'Live', 'reviewer');
  // A reviewer follows jobs but does not start them.
  await expect(bobPanel.getByRole('button', { name: 'Auto-label all photos' })).toHaveCount(0);

  // Bob rejects Alice's object: it leaves her list (rejected objects are not listed) without a reload.
  await reviewSelects(bob.page).first().selectOption('rejected');
  await expect(await objectRows(alice.page)).toHaveCount(0);
  await expect(alicePanel.getByTestId('sync-state')).toHaveText('Up to date');

  // Alice has the server label the project; both see the job finish and its proposals arrive.
  await alicePanel.getByLabel('Auto-label kind').selectOption('text');
  await alicePanel.getByLabel('Auto-label prompt').fill('cat');
  await alicePanel.getByRole('button', { name: 'Auto-label all photos' }).click();
  for (const panel of [alicePanel, bobPanel]) {
    await expect(panel.getByTestId('job-row')).toHaveAttribute('data-state', 'done', { timeout: 150_000 });
    await expect(panel.getByTestId('job-progress')).toContainText('done · 1 of 1');
  }
  await expect(reviewSelects(alice.page).first()).toHaveValue('proposed');
  await expect(reviewSelects(bob.page).first()).toHaveValue('proposed');
  const proposals = await reviewSelects(bob.page).count();
  expect(proposals).toBeGreaterThan(0);
  await expect(reviewSelects(alice.page)).toHaveCount(proposals);
  await screenshot(bob.page, 'live-01-bob-sees-job-proposals');

  // Bob accepts the first proposal: Alice sees it accepted.
  await reviewSelects(bob.page).first().selectOption('accepted');
  await expect(reviewSelects(alice.page).first()).toHaveValue('accepted');
  await expect(alicePanel.getByTestId('sync-state')).toHaveText('Up to date');
  await expect(bobPanel.getByTestId('sync-state')).toHaveText('Up to date');
  await screenshot(alice.page, 'live-02-alice-sees-bob-accept');

  // A job started by mistake is cancelled from the panel; the other member sees it cancelled too.
  await alicePanel.getByLabel('Auto-label kind').selectOption('everything');
  await alicePanel.getByRole('button', { name: 'Auto-label all photos' }).click();
  const everything = (panel: typeof alicePanel) => panel.getByTestId('job-row').filter({ hasText: 'Everything' });
  await everything(alicePanel).getByRole('button', { name: 'Cancel' }).click();
  await expect(everything(alicePanel)).toHaveAttribute('data-state', 'cancelled');
  await expect(everything(bobPanel)).toHaveAttribute('data-state', 'cancelled');
  await expect(everything(alicePanel).getByRole('button', { name: 'Cancel' })).toHaveCount(0);

  // With the stream down the studio cannot know it is current: it says so, and recovers.
  await alice.page.context().setOffline(true);
  await expect(alicePanel.getByTestId('sync-state')).toHaveText('Offline');
  await alice.page.context().setOffline(false);
  await expect(alicePanel.getByTestId('sync-state')).toHaveText('Up to date');
});

test('a photo another member adds or removes arrives without reopening; undo takes back only my own step, not his', async ({ browser }) => {
  const { alice, bob, name, alicePanel, bobPanel } = await projectSharedWithBob(browser, 'Photos', 'annotator');
  const thumb = (page: Page, file: string) => page.locator('.thumb').filter({ hasText: file });

  // Bob opens a photo: it goes into the project, and into Alice's list behind the photo she is on.
  await openSample(bob.page, 'Coffee cup');
  await expect(thumb(alice.page, 'coffee.png')).toBeVisible();
  await expect(alice.page.locator('.thumb[aria-current="true"]')).toContainText('chelsea.png');
  await expect(alicePanel.getByTestId('sync-state')).toHaveText('Up to date');
  await expect(alice.page.getByRole('alert').filter({ hasText: 'open it again' })).toHaveCount(0);
  await thumb(alice.page, 'coffee.png').click();
  await expect(alice.page.getByTestId('canvas')).toHaveAttribute('data-camera', /\d/);
  await screenshot(alice.page, 'live-03-alice-sees-bobs-photo');
  await thumb(alice.page, 'chelsea.png').click();
  await thumb(bob.page, 'chelsea.png').click();

  // Alice paints a second object; then Bob paints one. Alice's undo takes back her own object only.
  await brushObject(alice.page, 300, 80);
  await expect(alicePanel.getByTestId('sync-state')).toHaveText('Up to date');
  await expect(await objectRows(bob.page)).toHaveCount(2);
  await brushObject(bob.page, 200, 200);
  await expect(await objectRows(alice.page)).toHaveCount(3);
  await expect(alicePanel.getByTestId('sync-state')).toHaveText('Up to date');
  await alice.page.getByRole('button', { name: 'Undo', exact: true }).click();
  await expect(await objectRows(alice.page)).toHaveCount(2);
  await expect(alicePanel.getByTestId('sync-state')).toHaveText('Up to date');
  await expect(await objectRows(bob.page)).toHaveCount(2);
  await expect(bobPanel.getByTestId('sync-state')).toHaveText('Up to date');
  const { base, imageId } = await serverProject(alice.page, name);
  const stored = (await (await alice.page.request.get(`${base}/images/${imageId('chelsea.png')}/annotations`)).json()) as { objects: Array<{ changedBy?: string }> };
  expect(stored.objects.map((o) => o.changedBy)).toEqual([alice.email, bob.email]);

  // Alice removes the photo from the project: it leaves Bob's list, who had added it.
  expect(await removeProjectImage(alice.page, base, imageId('coffee.png'))).toBe(204);
  await expect(thumb(bob.page, 'coffee.png')).toHaveCount(0);
  await expect(thumb(alice.page, 'coffee.png')).toHaveCount(0);
  await expect(bobPanel.getByTestId('sync-state')).toHaveText('Up to date');
});
