/**
 * Projects on the server (issue 28) over real HTTP, two servers on one database (SQLite file, or a
 * PostgreSQL schema when TEST_DATABASE_URL is set), as two processes behind a balancer would be:
 * isolation (404 on every path of a project that is not yours), roles, concurrent writes (exactly
 * one wins, the other gets the current revision and loses nothing), quota, dedupe, and an export
 * equal to the studio's export of the same data.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readZip } from '../annotations/formats/zip';
import { formatById, writeFormat } from '../annotations/formats/registry';
import { sessionDataset } from '../annotations/formats/dataset';
import { toWire } from '../annotations/wire';
import type { AnnotatedImages, Annotation } from '../annotations/annotation';
import { EXPORT_FORMATS, PROJECT_THUMBNAIL_MAX_SIDE, type AnnotationObject, type ImageAnnotations, type Project, type ProjectImage } from '../contract/projects';
import { DATABASES, expectJson, expectProblem, NO_INFERENCE, sampleBase64, signupUser, startTestServer, userClient, type TestServer, type TestUser } from '../../test/support/server/harness';

const CHELSEA = { name: 'chelsea.png', width: 451, height: 300, bytes: 240_512 };

const json = expectJson;
const client = userClient;

const square = (id: string, x: number, classId: number | null, extra: Partial<AnnotationObject> = {}): AnnotationObject => ({
  id,
  classId,
  polygons: [{ outer: [[x, 10], [x + 40, 10], [x + 40, 50], [x, 50]], holes: [] }],
  source: 'local',
  confidence: 0.9,
  visible: true,
  review: 'unreviewed',
  ...extra,
});

describe.each(DATABASES)('projects (%s, two servers on one database)', (dbKind) => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer({ db: dbKind, backend: NO_INFERENCE, config: { projectQuotaBytes: 1_000_000 } });
    b = await startTestServer({ db: dbKind, backend: NO_INFERENCE, config: { projectQuotaBytes: 1_000_000 }, database: a.database });
  });
  afterAll(async () => {
    await b?.cleanup();
    await a?.cleanup();
  });

  async function projectWithImage(owner: TestUser, server = a) {
    const api = client(server, owner);
    const project = await json<Project>(await api.post('/api/v1/projects', { name: 'Cats', classes: [{ id: 1, name: 'cat', color: '#ff5c5c' }, { id: 4, name: 'ear', color: '#3fa7ff' }] }), 201);
    const image = await json<ProjectImage>(await api.post(`/api/v1/projects/${project.id}/images`, { name: CHELSEA.name, image: `data:image/png;base64,${sampleBase64(CHELSEA.name)}` }), 201);
    return { project, image, api };
  }

  it('creates a project, stores an image read back byte for byte from the other server, and lists it as mine', async () => {
    const owner = await signupUser(a);
    const { project, image } = await projectWithImage(owner);
    expect(project).toMatchObject({ name: 'Cats', role: 'owner', owner: owner.email, imageCount: 0 });
    expect(image).toMatchObject({ name: CHELSEA.name, width: CHELSEA.width, height: CHELSEA.height, bytes: CHELSEA.bytes, revision: 0 });
    const other = client(b, owner);
    expect((await json<{ projects: Project[] }>(await other.get('/api/v1/projects'), 200)).projects.map((p) => [p.id, p.imageCount])).toEqual([[project.id, 1]]);
    const file = await other.get(`/api/v1/projects/${project.id}/images/${image.id}/file`);
    expect(Buffer.from(await file.arrayBuffer()).equals(Buffer.from(sampleBase64(CHELSEA.name), 'base64'))).toBe(true);
    // The same file again in the same project is that image, not a second one.
    const again = await json<ProjectImage>(await other.post(`/api/v1/projects/${project.id}/images`, { name: 'copy.png', image: sampleBase64(CHELSEA.name) }), 200);
    expect(again.id).toBe(image.id);
    // Every image's annotations in one read equal the reads one by one.
    await json(await other.put(`/api/v1/projects/${project.id}/images/${image.id}/annotations`, { revision: 0, objects: [square('o1', 10, 1)] }), 200);
    const one = await json<ImageAnnotations>(await client(a, owner).get(`/api/v1/projects/${project.id}/images/${image.id}/annotations`), 200);
    expect(await json(await client(a, owner).get(`/api/v1/projects/${project.id}/annotations`), 200)).toEqual({ annotations: [one] });
    expect(one).toMatchObject({ revision: 1, updatedBy: owner.email });
  });

  it('serves a small WebP thumbnail of an image, content-addressed and cached, revalidated with 304', async () => {
    const owner = await signupUser(a);
    const { project, image } = await projectWithImage(owner);
    const path = `/api/v1/projects/${project.id}/images/${image.id}/thumbnail`;
    const response = await client(b, owner).get(path);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/webp');
    expect(response.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    const etag = response.headers.get('etag');
    expect(etag).toBe(`"${image.sha256}.w${PROJECT_THUMBNAIL_MAX_SIDE}.webp"`);
    const thumbnail = Buffer.from(await response.arrayBuffer());
    expect(await sharp(thumbnail).metadata()).toMatchObject({ format: 'webp', width: PROJECT_THUMBNAIL_MAX_SIDE, height: Math.round((CHELSEA.height / CHELSEA.width) * PROJECT_THUMBNAIL_MAX_SIDE) });
    expect(thumbnail.byteLength).toBeLessThan(CHELSEA.bytes / 20);
    // Revalidation: the tag it holds is still the thumbnail, nothing is sent again.
    const again = await client(a, owner).get(path, { 'If-None-Match': etag! });
    expect(again.status).toBe(304);
    expect((await again.arrayBuffer()).byteLength).toBe(0);
    expect((await client(a, owner).get(path, { 'If-None-Match': '"something-else"' })).status).toBe(200);
    // The same file in another account's project has the same tag: it is named by its bytes.
    const other = await signupUser(a);
    const copy = await projectWithImage(other, b);
    expect((await client(a, other).get(`/api/v1/projects/${copy.project.id}/images/${copy.image.id}/thumbnail`)).headers.get('etag')).toBe(etag);
    // A tag held is no way in: another account's revalidation is 404 like any other read.
    await expectProblem(await client(a, other).get(path, { 'If-None-Match': etag! }), 404, 'not-found');
    await expectProblem(await client(a, owner).get(`/api/v1/projects/${project.id}/images/no-such-image/thumbnail`), 404, 'not-found');
  });

  it('answers 404, never 403, on every path of a project that is neither yours nor shared with you', async () => {
    const owner = await signupUser(a);
    const stranger = await signupUser(a);
    const { project, image } = await projectWithImage(owner);
    const s = client(b, stranger);
    const base = `/api/v1/projects/${project.id}`;
    const attempts = [
      s.get(base),
      s.put(`${base}/classes`, { classes: [] }),
      s.get(`${base}/images`),
      s.post(`${base}/images`, { name: 'x.png', image: sampleBase64('coffee.png') }),
      s.get(`${base}/images/${image.id}/file`),
      s.get(`${base}/images/${image.id}/thumbnail`),
      s.del(`${base}/images/${image.id}`),
      s.get(`${base}/images/${image.id}/annotations`),
      s.get(`${base}/annotations`),
      s.put(`${base}/images/${image.id}/annotations`, { revision: 0, objects: [] }),
      s.get(`${base}/members`),
      s.post(`${base}/members`, { email: stranger.email, role: 'annotator' }),
      s.del(`${base}/members/${encodeURIComponent(owner.email)}`),
      s.get(`${base}/export?format=coco`),
      s.get(`${base}/export?format=yolo`),
    ];
    for (const response of await Promise.all(attempts)) await expectProblem(response, 404, 'not-found');
    expect((await json<{ projects: Project[] }>(await s.get('/api/v1/projects'), 200)).projects).toEqual([]);
    // Nothing changed: the image and its annotations are as the owner left them.
    const mine = await json<ImageAnnotations>(await client(a, owner).get(`${base}/images/${image.id}/annotations`), 200);
    expect(mine.revision).toBe(0);
    // Without any credential: 401.
    await expectProblem(await a.fetch(base), 401, 'unauthenticated');
  });

  it('roles: the owner shares; an annotator labels but cannot manage members; a reviewer reviews but cannot add or delete images', async () => {
    const owner = await signupUser(a);
    const annotator = await signupUser(a);
    const reviewer = await signupUser(a);
    const { project, image, api } = await projectWithImage(owner);
    const base = `/api/v1/projects/${project.id}`;
    expect(await json(await api.post(`${base}/members`, { email: annotator.email.toUpperCase(), role: 'annotator' }), 201)).toEqual({ email: annotator.email, role: 'annotator', addedAt: expect.any(String) });
    await json(await api.post(`${base}/members`, { email: reviewer.email, role: 'reviewer' }), 201);
    // Adding is an invitation (issue 38): each joins before the project shows to them.
    await json(await client(b, annotator).post(`${base}/join`, {}), 200);
    await json(await client(b, reviewer).post(`${base}/join`, {}), 200);
    await expectProblem(await api.post(`${base}/members`, { email: 'nobody@example.test', role: 'reviewer' }), 404, 'not-found');
    await expectProblem(await api.post(`${base}/members`, { email: annotator.email, role: 'owner' }), 400, 'validation-failed');

    const ann = client(b, annotator);
    const rev = client(b, reviewer);
    expect((await json<Project>(await ann.get(base), 200)).role).toBe('annotator');
    expect((await json<{ projects: Project[] }>(await rev.get('/api/v1/projects'), 200)).projects.map((p) => [p.id, p.role])).toEqual([[project.id, 'reviewer']]);

    const labelled = await json<ImageAnnotations>(await ann.put(`${base}/images/${image.id}/annotations`, { revision: 0, objects: [square('o1', 10, 1), square('o2', 100, 4)] }), 200);
    expect(labelled.objects.map((o) => o.changedBy)).toEqual([annotator.email, annotator.email]);
    await expectProblem(await ann.post(`${base}/members`, { email: reviewer.email, role: 'annotator' }), 403, 'role-forbidden');
    await expectProblem(await ann.del(`${base}/members/${encodeURIComponent(reviewer.email)}`), 403, 'role-forbidden');
    await expectProblem(await ann.put(`${base}/classes`, { classes: [] }), 403, 'role-forbidden');

    // The reviewer accepts one object and rejects the other: each stamped with who judged it.
    const reviewed = await json<ImageAnnotations>(
      await rev.put(`${base}/images/${image.id}/annotations`, { revision: 1, objects: [{ ...labelled.objects[0], review: 'accepted' }, labelled.objects[1]] }),
      200,
    );
    expect(reviewed.objects.map((o) => [o.review, o.changedBy])).toEqual([['accepted', reviewer.email], ['unreviewed', annotator.email]]);
    await expectProblem(await rev.del(`${base}/images/${image.id}`), 403, 'role-forbidden');
    await expectProblem(await rev.post(`${base}/images`, { name: 'c.png', image: sampleBase64('coffee.png') }), 403, 'role-forbidden');
    expect((await json<{ members: Array<{ email: string; role: string }> }>(await rev.get(`${base}/members`), 200)).members.map((m) => m.role)).toEqual(['owner', 'annotator', 'reviewer']);

    // Removed, the reviewer no longer sees the project at all.
    expect((await api.del(`${base}/members/${encodeURIComponent(reviewer.email)}`)).status).toBe(204);
    await expectProblem(await rev.get(base), 404, 'not-found');
    // The annotator may delete an image.
    expect((await ann.del(`${base}/images/${image.id}`)).status).toBe(204);
    expect((await json<{ images: unknown[] }>(await api.get(`${base}/images`), 200)).images).toEqual([]);
  });

  it('two writers on one revision, one per server: exactly one succeeds, the other gets the current revision and merges without loss', async () => {
    const owner = await signupUser(a);
    const colleague = await signupUser(a);
    const { project, image, api } = await projectWithImage(owner);
    const base = `/api/v1/projects/${project.id}`;
    await json(await api.post(`${base}/members`, { email: colleague.email, role: 'annotator' }), 201);
    await json(await client(b, colleague).post(`${base}/join`, {}), 200);
    const path = `${base}/images/${image.id}/annotations`;
    const mine = [square('alice-1', 10, 1)];
    const theirs = [square('bob-1', 200, 4)];
    const [first, second] = await Promise.all([client(a, owner).put(path, { revision: 0, objects: mine }), client(b, colleague).put(path, { objects: theirs }, { 'if-match': '"0"' })]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([200, 409]);
    const [winner, loser] = first.status === 200 ? [first, second] : [second, first];
    const won = (await winner.json()) as ImageAnnotations;
    expect(winner.headers.get('etag')).toBe('"1"');
    const conflict = await expectProblem(loser, 409, 'revision-conflict');
    expect(conflict.currentRevision).toBe(1);
    expect((conflict.current as ImageAnnotations).objects.map((o) => o.id)).toEqual(won.objects.map((o) => o.id));

    // The loser merges per object into what is stored and writes on the current revision.
    const merged = [...(conflict.current as ImageAnnotations).objects, ...(first.status === 200 ? theirs : mine)];
    const after = await json<ImageAnnotations>(await (first.status === 200 ? client(b, colleague) : client(a, owner)).put(path, { revision: 1, objects: merged }), 200);
    expect(after.revision).toBe(2);
    expect(after.objects.map((o) => o.id).sort()).toEqual(['alice-1', 'bob-1']);
    // A write on a stale revision never lands, whatever the body says.
    await expectProblem(await client(a, owner).put(path, { revision: 1, objects: [] }), 409, 'revision-conflict');
    expect((await json<ImageAnnotations>(await client(b, owner).get(path), 200)).objects).toHaveLength(2);
  });

  it('refuses objects of unknown classes, duplicate ids and masks that do not cover the image', async () => {
    const owner = await signupUser(a);
    const { project, image, api } = await projectWithImage(owner);
    const path = `/api/v1/projects/${project.id}/images/${image.id}/annotations`;
    const body = await expectProblem(
      await api.put(path, { revision: 0, objects: [square('x', 1, 9), square('x', 1, null), square('m', 1, 1, { mask: { width: 10, height: 10, counts: [100] } })] }),
      400,
      'validation-failed',
    );
    expect((body.errors as Array<{ path: string }>).map((e) => e.path)).toEqual(['objects.0.classId', 'objects.1.id', 'objects.2.mask']);
    expect((await json<ImageAnnotations>(await api.get(path), 200)).revision).toBe(0);
  });

  it('stores a file once whoever uploads it, and counts it once against the owner quota; over the quota: 507 and nothing stored', async () => {
    const owner = await signupUser(a);
    const other = await signupUser(a);
    const first = await projectWithImage(owner);
    const second = await projectWithImage(owner, b); // the same photo in a second project of the same owner: no new bytes
    const third = await projectWithImage(other);
    const digest = first.image.sha256;
    expect([second.image.sha256, third.image.sha256]).toEqual([digest, digest]);
    const rows = await a.services.db.kysely.selectFrom('blobs').select('digest').where('digest', '=', digest).execute();
    expect(rows).toHaveLength(1);
    if (dbKind === 'postgres') {
      expect(await a.services.db.kysely.selectFrom('blob_data').select('digest').where('digest', '=', digest).execute()).toHaveLength(1);
    } else {
      const dir = join(dirname(a.database.sqliteFile!), 'blobs', digest.slice(0, 2));
      expect(readdirSync(dir)).toEqual([digest]);
    }
    expect(await a.services.projects.usedBytes(await accountId(owner))).toBe(CHELSEA.bytes);

    // 240,512 stored of 1,000,000: coffee (466,706) fits, astronaut (791,555) does not.
    await json(await first.api.post(`/api/v1/projects/${first.project.id}/images`, { name: 'coffee.png', image: sampleBase64('coffee.png') }), 201);
    const refused = await expectProblem(await client(b, owner).post(`/api/v1/projects/${second.project.id}/images`, { name: 'astronaut.png', image: sampleBase64('astronaut.png') }), 507, 'storage-quota-exceeded');
    expect(refused).toMatchObject({ usedBytes: CHELSEA.bytes + 466_706, quotaBytes: 1_000_000, neededBytes: 791_555 });
    expect((await json<{ images: ProjectImage[] }>(await first.api.get(`/api/v1/projects/${second.project.id}/images`), 200)).images.map((i) => i.name)).toEqual([CHELSEA.name]);
    // Another account's quota is its own: the same coffee fits there too, and refused is refused for the owner only.
    await json(await third.api.post(`/api/v1/projects/${third.project.id}/images`, { name: 'coffee.png', image: sampleBase64('coffee.png') }), 201);
    await expectProblem(await first.api.post(`/api/v1/projects/${first.project.id}/images`, { name: 'astronaut.png', image: sampleBase64('astronaut.png') }), 507, 'storage-quota-exceeded');
  });

  async function accountId(user: TestUser): Promise<string> {
    return (await a.services.db.kysely.selectFrom('accounts').select('id').where('email', '=', user.email).executeTakeFirstOrThrow()).id;
  }

  it('exports every format of the registry equal to the studio export of the same document', async () => {
    const owner = await signupUser(a);
    const { project, image, api } = await projectWithImage(owner);
    const mask = { width: CHELSEA.width, height: CHELSEA.height, data: new Uint8Array(CHELSEA.width * CHELSEA.height) };
    for (let y = 60; y < 120; y++) mask.data.fill(1, y * CHELSEA.width + 80, y * CHELSEA.width + 170);
    const objects: Annotation[] = [
      { id: 'm', label: 'cat', classId: 1, confidence: 0.93, color: '#ff5c5c', visible: true, polygons: [{ outer: [[80, 60], [170, 60], [170, 120], [80, 120]], holes: [] }], mask, source: 'local' },
      { id: 'p', label: 'object', classId: null, confidence: 0.5, color: '#3fa7ff', visible: false, polygons: [{ outer: [[300, 200], [400, 200], [350, 280]], holes: [] }], source: 'remote' },
      { id: 'e', label: 'ear', classId: 4, confidence: 0.71, color: '#3fa7ff', visible: true, polygons: [{ outer: [[10, 10], [60, 10], [60, 60], [10, 60]], holes: [[[20, 20], [40, 20], [40, 40], [20, 40]]] }], source: 'local' },
      // A proposal not yet reviewed: kept in the project, left out of every export (as in the studio).
      { id: 'q', label: 'cat', classId: 1, confidence: 0.6, color: '#ff5c5c', visible: true, polygons: [{ outer: [[200, 150], [260, 150], [260, 200]], holes: [] }], source: 'text', review: { state: 'unreviewed', source: 'text-prompt' } },
      // A box: a bbox in the detection formats, left out of those that cannot hold one (writeFormat).
      { id: 'b', kind: 'box', box: [250, 40, 60, 50], label: 'cat', classId: 1, confidence: 1, color: '#ff5c5c', visible: true, polygons: [], source: 'local' },
    ];
    await json(await api.put(`/api/v1/projects/${project.id}/images/${image.id}/annotations`, { revision: 0, objects: objects.map(toWire) }), 200);
    const doc: AnnotatedImages = {
      images: [{ id: 'img-local', name: CHELSEA.name, width: CHELSEA.width, height: CHELSEA.height }],
      objects: { 'img-local': objects },
      classes: project.classes,
    };
    const studio = sessionDataset(doc, { includeHidden: true });
    // What may differ between two writes of the same data: the time written into the file and the zip's entry dates.
    const undated = (text: string) => text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, 'DATE').replace(/"year": \d+/g, '"year": 0');
    const contents = async (bytes: Uint8Array, mime: string) =>
      mime === 'application/zip'
        ? (await readZip(bytes)).map((f) => ({ name: f.name, text: undated(new TextDecoder().decode(f.data)) }))
        : [{ name: '', text: undated(new TextDecoder().decode(bytes)) }];
    for (const id of EXPORT_FORMATS) {
      const format = formatById(id)!;
      const options = Object.fromEntries((format.options ?? []).map((o) => [o.id, o.defaultValue]));
      const { file: expected } = await writeFormat(format, studio, options);
      const served = await client(b, owner).get(`/api/v1/projects/${project.id}/export?format=${id}`);
      expect(served.status, id).toBe(200);
      expect(served.headers.get('content-type'), id).toContain(expected.mime);
      expect(served.headers.get('content-disposition'), id).toMatch(/^attachment; filename="Cats[.-]/);
      expect(await contents(new Uint8Array(await served.arrayBuffer()), expected.mime), id).toEqual(await contents(expected.bytes, expected.mime));
    }
    const coco = await json<{ annotations: unknown[] }>(await api.get(`/api/v1/projects/${project.id}/export?format=coco`), 200);
    expect(coco.annotations).toHaveLength(4);
    await expectProblem(await api.get(`/api/v1/projects/${project.id}/export?format=tfrecord`), 400, 'validation-failed');
  });

  it('exports 256 overlapping objects on one image as PNG masks and VOC (16-bit masks, said in NOTES.md), not a 500', async () => {
    const owner = await signupUser(a);
    const { project, image, api } = await projectWithImage(owner);
    // 16 × 16 squares of 20 px on a 15 px grid: each overlaps its neighbours.
    const objects = Array.from({ length: 256 }, (_, i) => {
      const [x, y] = [10 + (i % 16) * 15, 10 + Math.floor(i / 16) * 15];
      return { ...square(`s${i}`, 0, 1), review: 'accepted', polygons: [{ outer: [[x, y], [x + 20, y], [x + 20, y + 20], [x, y + 20]], holes: [] }] } as AnnotationObject;
    });
    await json(await api.put(`/api/v1/projects/${project.id}/images/${image.id}/annotations`, { revision: 0, objects }), 200);
    for (const [format, maskEntry] of [['png-masks', 'chelsea.instances.png'], ['voc', 'SegmentationObject/chelsea.png']]) {
      const served = await api.get(`/api/v1/projects/${project.id}/export?format=${format}`);
      expect(served.status, format).toBe(200);
      const files = await readZip(new Uint8Array(await served.arrayBuffer()));
      const png = files.find((f) => f.name === maskEntry)!;
      expect(png.data[24], `${format}: IHDR bit depth`).toBe(16);
      expect(new TextDecoder().decode(files.find((f) => f.name === 'NOTES.md')!.data), format).toMatch(/256 objects, more than .* 16-bit grayscale/);
    }
  });

  it('documents the conflict, the quota and the contract schemas of the project routes (the route table lists them)', async () => {
    const doc = (await (await a.fetch('/api/v1/openapi.json')).json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>>; components: { schemas: Record<string, unknown> } };
    expect(Object.keys(doc.paths['/api/v1/projects/{projectId}/images/{imageId}/annotations'].put.responses)).toContain('409');
    expect(Object.keys(doc.paths['/api/v1/projects/{projectId}/images'].post.responses)).toContain('507');
    expect(doc.components.schemas.WriteAnnotationsRequest).toBeDefined();
  });
});
