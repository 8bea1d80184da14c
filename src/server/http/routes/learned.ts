/**
 * A project's learned model over HTTP (issue 37 item 6): `GET/PUT /api/v1/projects/{id}/learned`.
 * Thin adapters onto domain/projects/learnedModels.ts; the ETag is the model's revision, and a PUT
 * names the revision it learned on (body `revision`, or `If-Match`).
 */
import type { FastifyInstance } from 'fastify';
import { PutLearnedModelRequest, asLearnedClassesState } from '../../../contract/learned';
import { DomainError } from '../../domain/errors';
import type { StoredLearnedModel } from '../../domain/projects/learnedModels';
import type { Services } from '../../domain/services';
import { apiRoute } from '../apiRoutes';
import { parseBody } from '../validation';
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

  apiRoute<ProjectParams>(app, 'writeLearnedModel', { ...any, bodyLimit: learnedModels.maxBytes }, async (request, reply) => {
    const body = parseBody(PutLearnedModelRequest, request.body);
    const revision = body.revision ?? ifMatchRevision(request.headers['if-match']);
    if (revision === undefined) {
      throw new DomainError('validation-failed', 'name the revision the model was learned on: body `revision` (0 for a project without a model) or `If-Match: "<revision>"`', {
        errors: [{ path: 'revision', message: 'required (or If-Match)' }],
      });
    }
    const stored = await learnedModels.write(account(request), request.params.projectId, revision, asLearnedClassesState(body.model));
    return reply.header('ETag', `"${stored.revision}"`).type('application/json; charset=utf-8').send(learnedJson(stored));
  });
}
