/**
 * Request id + response headers every response carries (errors, 404s, static files included):
 * X-Service-Request-ID, the cross-origin isolation pair ORT's threaded WASM needs, the security
 * headers (http/securityHeaders.ts), nosniff.
 */
import fp from 'fastify-plugin';
import type { FastifyReply } from 'fastify';
import type { Timings } from '../../domain/timings';

declare module 'fastify' {
  interface FastifyRequest {
    /** Durations of this request's phases (ms), reported by the metered routes as Server-Timing. */
    timings: Timings;
    /** When Fastify started reading the body (performance.now()). */
    receiveStart: number;
  }
}

export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
} as const;

/** Shared with the server's shutdown: while draining, answers close their connection. */
export interface Lifecycle {
  draining: boolean;
}

export const requestContextPlugin = fp<{ lifecycle: Lifecycle; headers: Record<string, string> }>(async (app, { lifecycle, headers }) => {
  // While draining (SIGTERM), answers close their connection: an idle keep-alive socket would
  // otherwise hold server.close() open until keepAliveTimeout (72 s) after the last response.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.decorateRequest('timings', null as unknown as Timings);
  app.decorateRequest('receiveStart', 0);
  // Callback-style hooks: they run on every request, and an async hook costs a promise and a turn.
  const putHeaders = (reply: FastifyReply) => {
    for (const [name, value] of Object.entries(headers)) reply.header(name, value);
    reply.header('X-Content-Type-Options', 'nosniff');
  };
  app.addHook('onRequest', (request, reply, done) => {
    request.timings = {};
    reply.header('X-Service-Request-ID', request.id);
    // A hijacked reply (the project event stream) never reaches onSend: it writes these itself.
    putHeaders(reply);
    done();
  });
  // Receiving the body: from the end of the onRequest hooks (auth) until the handler may run.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    request.receiveStart = performance.now();
    done(null, payload);
  });
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.receiveStart) request.timings.receive = performance.now() - request.receiveStart;
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('X-Service-Request-ID', request.id);
    putHeaders(reply);
    // Answered before its body was read (401, 413, 429 on arrival): the rest of the body is not
    // wanted, so the connection closes after the answer instead of reading a trickle to its end.
    if (closing || !request.raw.complete) reply.header('Connection', 'close');
    done(null, payload);
  });
});
