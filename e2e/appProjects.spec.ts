import { expect, test, type Page } from '@playwright/test';
import { brushObject, objectRows, openSample, personSignedUp, screenshot } from './appHelpers';

/**
 * Shared projects (issue 28) in two browser contexts — two people on two machines — against the real
 * API server, which serves the studio on its origin: Alice makes a project of her session and shares
 * it with Bob as a reviewer; her next edit reaches the server in the background; Bob opens the
 * project, sees her photo and objects, and rejects one while Alice is offline: his review reaches the
 * server. Alice, still offline, hides that object: back online, her edit meets his and both versions
 * are kept.
 */
/** The objects of the project's one photo as the server holds them (review state and who changed it), read with this person's session. */
async function serverObjects(page: Page, projectName: string): Promise<Array<{ review: string; changedBy: string }>> {
  const { projects } = (await (await page.request.get('/api/v1/projects')).json()) as { projects: Array<{ id: string; name: string }> };
  const id = projects.find((p) => p.name === projectName)!.id;
  const { annotations } = (await (await page.request.get(`/api/v1/projects/${id}/annotations`)).json()) as { annotations: Array<{ objects: Array<{ review: string; changedBy: string }> }> };
  return annotations[0].objects;
}

test('a project shared with a reviewer: edits reach the server in the background, the other machine sees them and reviews, a conflict keeps both', async ({ browser }) => {
  const alice = await personSignedUp(browser, 'alice');
  const bob = await personSignedUp(browser, 'bob');
  const name = `Cats ${Date.now()}`;

  await openSample(alice.page, 'Chelsea the cat');
  await brushObject(alice.page, 120, 100);
  await expect(await objectRows(alice.page)).toHaveCount(1);
  const panel = alice.page.getByRole('region', { name: 'Project' });
  await panel.getByLabel('Project name').fill(name);
  await panel.getByRole('button', { name: 'Save session as project' }).click();
  await expect(panel.getByTestId('project-name')).toHaveText(name);
  await expect(panel.getByTestId('sync-state')).toHaveText('Up to date');
  expect(await serverObjects(alice.page, name)).toHaveLength(1);

  await panel.getByLabel('Share with (email)').fill(bob.email);
  await panel.getByLabel('Role').selectOption('reviewer');
  await panel.getByRole('button', { name: 'Share' }).click();
  await expect(panel.getByText(`Shared with ${bob.email} as reviewer.`)).toBeVisible();

  // A later edit is pushed without any button: the server has it shortly after.
  await brushObject(alice.page, 320, 200);
  await expect(await objectRows(alice.page)).toHaveCount(2);
  await expect.poll(async () => (await serverObjects(alice.page, name)).length, { timeout: 15_000 }).toBe(2);
  await expect(panel.getByTestId('sync-state')).toHaveText('Up to date');
  await screenshot(alice.page, 'projects-01-alice-saved');

  const bobPanel = bob.page.getByRole('region', { name: 'Project' });
  await bob.page.reload();
  // Sharing is an invitation (issue 38): Bob sees it, and the project once he joins.
  await expect(bobPanel.getByTestId('project-row').filter({ hasText: name })).toHaveCount(0);
  const invitation = bobPanel.getByTestId('invitation-row').filter({ hasText: name });
  await expect(invitation).toContainText(`invited as reviewer by ${alice.email}`);
  await invitation.getByRole('button', { name: `Join ${name}` }).click();
  await expect(invitation).toHaveCount(0);
  const row = bobPanel.getByTestId('project-row').filter({ hasText: name });
  await expect(row).toContainText(`reviewer · ${alice.email}`);
  await row.getByRole('button', { name: `Open ${name}` }).click();
  await expect(bobPanel.getByTestId('project-name')).toHaveText(name);
  await expect(bob.page.locator('.thumb[aria-current="true"]')).toContainText('chelsea.png');
  await expect(await objectRows(bob.page)).toHaveCount(2);
  await expect(bobPanel.getByTestId('sync-state')).toHaveText('Up to date');
  await screenshot(bob.page, 'projects-02-bob-sees-alice');

  // Alice goes offline (her studio no longer hears of others' changes), then Bob reviews: he rejects
  // Alice's first object (a hand-made object is accepted by its maker); his verdict reaches the
  // server, stamped with his name; her other object stays hers. A rejected object is kept in the
  // project but no longer listed.
  await alice.page.context().setOffline(true);
  await expect(panel.getByTestId('sync-state')).toHaveText('Offline');
  await (await objectRows(bob.page)).first().getByRole('combobox', { name: /^Review of/ }).selectOption('rejected');
  await expect
    .poll(async () => (await serverObjects(bob.page, name)).map((o) => [o.review, o.changedBy]), { timeout: 15_000 })
    .toEqual([
      ['rejected', bob.email],
      ['accepted', alice.email],
    ]);
  await expect(await objectRows(bob.page)).toHaveCount(1);
  await expect(bobPanel.getByTestId('sync-state')).toHaveText('Up to date');

  // Alice, offline, hides the object Bob has just rejected: her edit waits; back online it meets
  // his — both versions are kept, and she is told.
  await (await objectRows(alice.page)).first().getByRole('button', { name: /^Hide / }).click();
  await expect(panel.getByTestId('sync-state')).toHaveText('Offline');
  await alice.page.context().setOffline(false);
  await expect(panel.getByTestId('sync-state')).toHaveText('Conflict', { timeout: 15_000 });
  await expect(panel).toContainText('both versions are kept of one object');
  // Bob's rejected version is not listed; hers (hidden) and her other object are.
  await expect(await objectRows(alice.page)).toHaveCount(2);
  expect((await serverObjects(alice.page, name)).map((o) => [o.review, o.changedBy]).sort()).toEqual([
    ['accepted', alice.email],
    ['accepted', alice.email],
    ['rejected', bob.email],
  ]);
  await screenshot(alice.page, 'projects-03-alice-conflict-both-kept');
});
