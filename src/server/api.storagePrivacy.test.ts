/**
 * Storage that says nothing across accounts (issue 39), over real HTTP on SQLite and PostgreSQL:
 * uploading a file another account stored first does the same work as a new file (its bytes are
 * written again), and its thumbnail is rendered and cached for this project, not found in another
 * account's cache. Timings themselves are the adversarial suite's to measure; here the work is
 * checked, which is what made the difference (3 ms against 127 ms for a thumbnail).
 */
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Project, ProjectImage } from '../contract/projects';
import type { ThumbnailCache } from './domain/projects/thumbnails';
import { DATABASES, NO_INFERENCE, sampleBase64, signupUser, startTestServer, type TestServer, type TestUser } from '../../test/support/server/harness';

describe.each(DATABASES)('no cross-account signal from storage (%s)', (dbKind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ db: dbKind, backend: NO_INFERENCE });
  });
  afterAll(async () => server?.cleanup());

  async function upload(user: TestUser, file: string): Promise<{ project: Project; image: ProjectImage }> {
    const project = (await (await server.fetch('/api/v1/projects', { method: 'POST', headers: user.bearer, json: { name: 'Mine' } })).json()) as Project;
    const response = await server.fetch(`/api/v1/projects/${project.id}/images`, { method: 'POST', headers: user.bearer, json: { name: file, image: sampleBase64(file) } });
    expect(response.status).toBe(201);
    return { project, image: (await response.json()) as ProjectImage };
  }

  /** Something that changes each time the stored bytes of `digest` are written. */
  async function writeMark(digest: string): Promise<string> {
    if (server.dbKind === 'postgres') {
      const { rows } = await sql<{ mark: string }>`SELECT xmin::text AS mark FROM blob_data WHERE digest = ${digest}`.execute(server.services.db.kysely);
      return rows[0].mark;
    }
    const stat = statSync(join(dirname(server.database.sqliteFile!), 'blobs', digest.slice(0, 2), digest));
    return `${stat.ino}`;
  }

  it("a file another account stored first is written again and gets this project's own thumbnail", async () => {
    const first = await signupUser(server);
    const second = await signupUser(server);
    const mine = await upload(first, 'coffee.png');
    const before = await writeMark(mine.image.sha256);
    const theirs = await upload(second, 'coffee.png');
    expect(theirs.image.sha256).toBe(mine.image.sha256);
    expect(await writeMark(mine.image.sha256)).not.toBe(before);

    const thumbnail = async (user: TestUser, { project, image }: { project: Project; image: ProjectImage }) => {
      const response = await server.fetch(`/api/v1/projects/${project.id}/images/${image.id}/thumbnail`, { headers: user.bearer });
      expect(response.status).toBe(200);
      return Buffer.from(await response.arrayBuffer());
    };
    expect((await thumbnail(second, theirs)).equals(await thumbnail(first, mine))).toBe(true);
    const cache = (server.services.projects as unknown as { thumbnails: ThumbnailCache }).thumbnails;
    const held = cache.cached().filter((key) => key.endsWith(mine.image.sha256));
    expect(held.sort()).toEqual([`${mine.project.id}/${mine.image.sha256}`, `${theirs.project.id}/${mine.image.sha256}`].sort());
  });
});
