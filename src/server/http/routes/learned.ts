/**
 * A project's learned model over HTTP (issue 37 item 6): `GET/PUT /api/v1/projects/{id}/learned`.
 * Thin adapters onto domain/projects/learnedModels.ts; the ETag is the model's revision, and a PUT
 * names the revision it learned on (body `revision`, or `If-Match`).
 */
import type { FastifyInstance } from 'fastify';
import type { StoredLearnedModel } from '../../domain/projects/learnedModels';
import type { Services } from '../../domain/services';
import { apiRoute } from '../apiRoutes';
import { ifMatchRevision } from './projects';

type ProjectParams = { Params: { projectId: string } };

/** The stored model JSON goes out as it is: a large model is not parsed and written again. */
const learnedJson = (stored: StoredLearnedModel) =>
  `{"revision":${stored.revision},"model":${stored.modelJson},"classes":${JSON.stringify(stored.classes)},"updatedBy":${JSON.stringify(stored.updatedBy)},"updatedAt":${JSON.stringify(stored.updatedAt)}}`;

export async function learnedRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const { learnedModels } = services;
  const any = { config: { auth: 'any' as const } };
  const account = (request: { principal: { accountId: string } | null }) => request.principal!.accountId;

  apiRoute<ProjectParams>(app, 'readLearnedModel', any, async (request, reply) => {
    const stored = await learnedModels.read(account(request), request.params.projectId);
    return reply.header('ETag', `"${stored.revision}"`).type('application/json; charset=utf-8').send(learnedJson(stored));
  });

  // The body stays text: parsing and validating a large model is the project workers' (off the event loop).
  await app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    apiRoute<ProjectParams>(scope, 'writeLearnedModel', { ...any, bodyLimit: learnedModels.maxBytes }, async (request, reply) => {
      const rawBody = typeof request.body === 'string' ? request.body : '';
      const stored = await learnedModels.write(account(request), request.params.projectId, { rawBody, ifMatchRevision: ifMatchRevision(request.headers['if-match']) });
      return reply.header('ETag', `"${stored.revision}"`).type('application/json; charset=utf-8').send(learnedJson(stored));
    });
  });
}
