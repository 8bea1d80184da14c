/**
 * Exports off the event loop and bounded (issue 39), over real HTTP: annotations past the limits are
 * refused with 413 `annotations-too-large` before any work, on the write and on the export; an
 * export runs in a worker thread of its own, so the server answers other requests meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION_LIMITS, type AnnotationObject, type Project, type ProjectImage } from '../contract/projects';
import { DATABASES, expectProblem, NO_INFERENCE, sampleBase64, signupUser, startTestServer, type TestServer, type TestUser } from '../../test/support/server/harness';

/** `count` objects in a grid over a 451 × 300 image, each outline a circle of `vertices` points. */
function circles(count: number, vertices: number): AnnotationObject[] {
  return Array.from({ length: count }, (_, i) => {
    const cx = 10 + (i % 40) * 11;
    const cy = 10 + Math.floor(i / 40) * 5;
    const outer = Array.from({ length: vertices }, (_, k): [number, number] => [cx + 4 * Math.cos((2 * Math.PI * k) / vertices), (cy % 290) + 4 * Math.sin((2 * Math.PI * k) / vertices)]);
    return { id: `o${i}`, classId: 1, polygons: [{ outer, holes: [] }], source: 'local', confidence: 1, visible: true, review: 'accepted' };
  });
}

describe.each(DATABASES)('export limits and workers (%s)', (dbKind) => {
  let server: TestServer;
  let owner: TestUser;
  beforeAll(async () => {
    server = await startTestServer({ db: dbKind, backend: NO_INFERENCE });
    owner = await signupUser(server);
  });
  afterAll(async () => server?.cleanup());

  const post = (path: string, body: unknown) => server.fetch(path, { method: 'POST', headers: owner.bearer, json: body });
  const put = (path: string, body: unknown) => server.fetch(path, { method: 'PUT', headers: owner.bearer, json: body });
  const get = (path: string) => server.fetch(path, { headers: owner.bearer });

  async function projectWithImages(files: string[]) {
    const project = (await (await post('/api/v1/projects', { name: 'Heavy', classes: [{ id: 1, name: 'dot', color: '#ff5c5c' }] })).json()) as Project;
    const images: ProjectImage[] = [];
    for (const file of files) images.push((await (await post(`/api/v1/projects/${project.id}/images`, { name: file, image: sampleBase64(file) })).json()) as ProjectImage);
    return { project, images };
  }

  it('refuses a write past the per-image limits with 413 before anything is written', async () => {
    const { project, images } = await projectWithImages(['chelsea.png']);
    const path = `/api/v1/projects/${project.id}/images/${images[0].id}/annotations`;
    const tooMany = await expectProblem(await put(path, { revision: 0, objects: circles(ANNOTATION_LIMITS.objectsPerImage + 1, 3) }), 413, 'annotations-too-large');
    expect(tooMany).toMatchObject({ rule: 'objects-per-image', limit: ANNOTATION_LIMITS.objectsPerImage, value: ANNOTATION_LIMITS.objectsPerImage + 1 });
    const tooLong = await expectProblem(await put(path, { revision: 0, objects: circles(2, ANNOTATION_LIMITS.verticesPerImage / 2 + 1) }), 413, 'annotations-too-large');
    expect(tooLong).toMatchObject({ rule: 'vertices-per-image', limit: ANNOTATION_LIMITS.verticesPerImage });
    expect(((await (await get(path)).json()) as { revision: number }).revision).toBe(0);
  });

  it('refuses a write, and an export, that would take the project past its vertex limit', async () => {
    const { project, images } = await projectWithImages(['chelsea.png', 'coffee.png']);
    // As if the other images already held the project's allowance (writing it for real would take minutes here).
    await server.services.db.kysely.updateTable('project_images').set({ vertex_count: ANNOTATION_LIMITS.verticesPerProject - 10 }).where('id', '=', images[1].id).execute();
    const refused = await expectProblem(await put(`/api/v1/projects/${project.id}/images/${images[0].id}/annotations`, { revision: 0, objects: circles(1, 11) }), 413, 'annotations-too-large');
    expect(refused).toMatchObject({ rule: 'vertices-per-project', limit: ANNOTATION_LIMITS.verticesPerProject, value: ANNOTATION_LIMITS.verticesPerProject + 1 });
    expect((await put(`/api/v1/projects/${project.id}/images/${images[0].id}/annotations`, { revision: 0, objects: circles(1, 10) })).status).toBe(200);
    await server.services.db.kysely.updateTable('project_images').set({ vertex_count: ANNOTATION_LIMITS.verticesPerProject }).where('id', '=', images[1].id).execute();
    await expectProblem(await get(`/api/v1/projects/${project.id}/export?format=coco`), 413, 'annotations-too-large');
  });

  it('runs an export in a worker thread: the server answers meanwhile, and the file is whole', async () => {
    const { project, images } = await projectWithImages(['chelsea.png']);
    // A body well over the size written at once (128 KiB): parsed and stamped in a worker thread too.
    const objects = circles(500, 100);
    expect((await put(`/api/v1/projects/${project.id}/images/${images[0].id}/annotations`, { revision: 0, objects })).status).toBe(200);
    expect(server.services.projectWorkers.threadJobs.write).toBeGreaterThan(0);
    const exportsBefore = server.services.projectWorkers.threadJobs.export;
    const order: string[] = [];
    const exporting = get(`/api/v1/projects/${project.id}/export?format=coco`).then(async (response) => {
      order.push('export');
      return response;
    });
    // Asked after the export: answered before it ends, because the export is not on the event loop.
    await new Promise((resolve) => setTimeout(resolve, 10));
    for (let i = 0; i < 3; i++) {
      expect((await server.fetch('/api/v1/health')).status).toBe(200);
      order.push('health');
    }
    const response = await exporting;
    expect(response.status).toBe(200);
    expect(order[0]).toBe('health');
    expect(server.services.projectWorkers.threadJobs.export).toBe(exportsBefore + 1);
    const coco = (await response.json()) as { annotations: unknown[] };
    expect(coco.annotations).toHaveLength(500);
  }, 300_000);
});
