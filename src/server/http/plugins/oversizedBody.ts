/**
 * A body whose Content-Length is over the route's limit is read to its end and dropped before the
 * 413 goes out, up to a cap. Fastify's own refusal closes the connection mid-upload, and a client
 * still writing then sees a reset (EPIPE) instead of the answer — the same reason nginx lingers on
 * close. Past the cap, closing the connection is cheaper than reading.
 */
import fp from 'fastify-plugin';
import { DomainError } from '../../domain/errors';

export const DRAIN_CAP_BYTES = 8 * 1024 * 1024;

export const oversizedBodyPlugin = fp(async (app) => {
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const declared = Number(request.headers['content-length']);
    const limit = request.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? Infinity;
    // The common case stays synchronous (this runs for every request with a body).
    if (!Number.isFinite(declared) || declared <= limit || declared > DRAIN_CAP_BYTES) return done(null, payload);
    void (async () => {
      for await (const chunk of payload) void chunk;
    })().then(
      () => done(new DomainError('payload-too-large', `the body is ${declared} bytes; this route accepts at most ${limit}`)),
      (error: Error) => done(error),
    );
  });
});
