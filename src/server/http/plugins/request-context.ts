/**
 * Request id + response headers every response carries (errors, 404s, static files included):
 * X-Service-Request-ID, the cross-origin isolation pair ORT's threaded WASM needs, nosniff.
 */
import fp from 'fastify-plugin';

export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
} as const;

/** Shared with the server's shutdown: while draining, answers close their connection. */
export interface Lifecycle {
  draining: boolean;
}

export const requestContextPlugin = fp<{ lifecycle: Lifecycle }>(async (app, { lifecycle }) => {
  // While draining (SIGTERM), answers close their connection: an idle keep-alive socket would
  // otherwise hold server.close() open until keepAliveTimeout (72 s) after the last response.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Service-Request-ID', request.id);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('X-Service-Request-ID', request.id);
    for (const [name, value] of Object.entries(ISOLATION_HEADERS)) reply.header(name, value);
    reply.header('X-Content-Type-Options', 'nosniff');
    if (closing) reply.header('Connection', 'close');
    return payload;
  });
});
