/**
 * A project that exists but is not yours answers exactly as one that does not exist (issue 39), on
 * every project route of the contract, over real HTTP against a real database: the same 404
 * problem, and the same work on the way to it — the same SQL statements, in the same order — so
 * the time of the answer cannot tell an existing project from an invented id. (The same work,
 * not a stopwatch: a timing bar would be a timed unit test on a shared machine.)
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from './config';
import { API_ROUTES, type ApiRouteId } from '../contract/routes';
import type { Project, ProjectImage } from '../contract/projects';
import { DATABASES, NO_INFERENCE, sampleBase64, signupUser, startTestServer, type TestServer, type TestUser } from '../../test/support/server/harness';

/** A body each route would accept from a member, so that a refusal can only be about the project. */
const BODIES: Partial<Record<ApiRouteId, unknown>> = {
  updateProjectClasses: { classes: [] },
  addProjectImage: { name: 'chelsea.png', image: sampleBase64('chelsea.png') },
  writeAnnotations: { revision: 0, objects: [] },
  addProjectMember: { email: 'someone@example.test', role: 'annotator' },
  assignProjectImage: { assignee: null },
  createJob: { kind: 'everything' },
};

const projectRoutes = (Object.keys(API_ROUTES) as ApiRouteId[]).filter((name) => API_ROUTES[name].path.includes('{projectId}'));

describe.each(DATABASES)('404 for a project that is not yours takes the same path as for none (%s)', (dbKind) => {
  let server: TestServer;
  let owner: TestUser;
  let stranger: TestUser;
  let project: Project;
  let image: ProjectImage;
  beforeAll(async () => {
    // The paused-jobs look (every 2 s by default) would run its statements in the middle of a request's.
    server = await startTestServer({ db: dbKind, backend: NO_INFERENCE, config: { jobs: { ...configFromEnv({}).jobs, resumeSeconds: 3600 } } });
    owner = await signupUser(server);
    stranger = await signupUser(server);
    project = (await (await server.fetch('/api/v1/projects', { method: 'POST', headers: owner.bearer, json: { name: 'Not yours', classes: [{ id: 1, name: 'cat', color: '#ff0000' }] } })).json()) as Project;
    image = (await (await server.fetch(`/api/v1/projects/${project.id}/images`, { method: 'POST', headers: owner.bearer, json: { name: 'chelsea.png', image: sampleBase64('chelsea.png') } })).json()) as ProjectImage;
  });
  afterAll(async () => server?.cleanup());

  /** The stranger's request on the route for `projectId`: its status, its problem (without the per-request ids) and the SQL it ran. */
  async function strangerRequest(name: ApiRouteId, projectId: string) {
    const route = API_ROUTES[name];
    const path = route.path
      .replace('{projectId}', projectId)
      .replace('{imageId}', image.id)
      .replace('{jobId}', 'job_0123456789abcdef')
      .replace('{email}', encodeURIComponent(owner.email));
    const statements: string[] = [];
    const stop = server.services.db.observeQueries((sql) => statements.push(sql));
    try {
      const body = BODIES[name];
      const response = await server.fetch(`${path}${name === 'exportProject' ? '?format=coco' : ''}`, { method: route.method, headers: stranger.bearer, ...(body === undefined ? {} : { json: body }) });
      const { requestId: _requestId, instance: _instance, ...problem } = (await response.json()) as Record<string, unknown>;
      return { status: response.status, problem, statements };
    } finally {
      stop();
    }
  }

  it.each(projectRoutes)('%s', async (name) => {
    // An id of the same form as the server's (ids.ts: opaqueId), of no project.
    const invented = `prj_${randomBytes(16).toString('base64url')}`;
    expect(invented).toHaveLength(project.id.length);
    // Asked twice each, alternately, so a cache warmed by the first ask is warm for both.
    await strangerRequest(name, project.id);
    await strangerRequest(name, invented);
    const existing = await strangerRequest(name, project.id);
    const missing = await strangerRequest(name, invented);
    expect(existing.status).toBe(404);
    expect(existing.problem).toEqual(missing.problem);
    expect(existing.statements.length).toBeGreaterThan(0);
    expect(existing.statements).toEqual(missing.statements);
  });
});
