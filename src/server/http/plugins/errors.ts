/** Turns every thrown error and unknown route into problem+json. Internal errors are logged, never leaked. */
import fp from 'fastify-plugin';
import { DomainError } from '../../domain/errors';
import { problemForFastifyError, sendProblem } from '../problem';

export const errorsPlugin = fp(async (app) => {
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof DomainError) return sendProblem(request, reply, error);
    const e = error as { code?: string; statusCode?: number; message: string };
    const mapped = problemForFastifyError(e);
    if (mapped.slug === 'internal-error') request.log.error({ err: error }, 'internal error');
    return sendProblem(request, reply, mapped);
  });
});
