/** Turns every thrown error and unknown route into problem+json. Internal errors are logged, never leaked. */
import fp from 'fastify-plugin';
import { isLockBusy } from '../../db/lockWaitingSqlite';
import { DomainError } from '../../domain/errors';
import { problemForFastifyError, sendProblem } from '../problem';

export const errorsPlugin = fp(async (app) => {
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof DomainError) return sendProblem(request, reply, error);
    // Another writer held SQLite's lock past the wait (a second process, a long project write): nothing was written.
    if (isLockBusy(error)) return sendProblem(request, reply, new DomainError('service-busy', 'the database is busy with another write; try again shortly', { retryAfterSeconds: 1 }));
    const e = error as { code?: string; statusCode?: number; message: string };
    const mapped = problemForFastifyError(e);
    if (mapped.slug === 'internal-error') request.log.error({ err: error }, 'internal error');
    return sendProblem(request, reply, mapped);
  });
});
