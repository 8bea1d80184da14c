/**
 * The Fastify application: cross-cutting concerns as plugins, routes as thin adapters onto the domain.
 * Order of a metered request: request id → auth + CSRF + rate limit (onRequest, before the body
 * is read) → body parser (413/415/400) → validation → domain (idempotency, charge, engine, refund).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import { PROBLEM_TYPES, problemTypeUri } from '../../contract/problems';
import type { Services } from '../domain/services';
import { DomainError } from '../domain/errors';
import { authPlugin } from './plugins/auth';
import { errorsPlugin } from './plugins/errors';
import { oversizedBodyPlugin } from './plugins/oversizedBody';
import { ISOLATION_HEADERS, requestContextPlugin, type Lifecycle } from './plugins/requestContext';
import { sendProblem } from './problem';
import { accountRoutes, type CookiePolicy } from './routes/account';
import { docsRoutes } from './routes/docs';
import { projectRoutes } from './routes/projects';
import { jobRoutes } from './routes/jobs';
import { learnedRoutes } from './routes/learned';
import { segmentationRoutes } from './routes/segmentation';
import { RouteMethods } from './methodNotAllowed';
import { apiRoute, guardApiRoutes } from './apiRoutes';
import { isLoopbackHost } from '../domain/demoPayments';
import { DEFAULT_DEADLINES, deadlineServerOptions, type Deadlines } from './deadlines';
import { securityHeaders, type SecurityHeaderSettings } from './securityHeaders';
import { SlicedWork } from './slicedWork';

export interface AppOptions {
  services: Services;
  cookies?: CookiePolicy;
  trustProxy?: boolean;
  /** Built SPA (dist/); skipped when absent. */
  staticDir?: string;
  logger?: boolean | { level: string };
  lifecycle?: Lifecycle;
  /** HEALTH_TOKEN: a Bearer token that shows health details to callers outside this machine. */
  healthToken?: string;
  /** How long a client may take to send headers and body, and to stay idle between requests. */
  deadlines?: Deadlines;
  /** HSTS (when served over TLS). */
  security?: SecurityHeaderSettings;
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const clientErrorAnswers = new SlicedWork();
  const clientErrorsQueued = new WeakSet<Duplex>();
  const { services } = options;
  const responseHeaders = { ...ISOLATION_HEADERS, ...securityHeaders(options.security) };
  const app = Fastify({
    logger:
      options.logger === false || options.logger === undefined
        ? false
        : {
            level: options.logger === true ? 'info' : options.logger.level,
            // Credentials never reach the log.
            redact: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-csrf-token"]'],
          },
    genReqId: () => `req_${randomBytes(12).toString('base64url')}`,
    requestIdHeader: false,
    trustProxy: options.trustProxy ?? false,
    bodyLimit: 64 * 1024,
    return503OnClosing: true,
    ...deadlineServerOptions(options.deadlines ?? DEFAULT_DEADLINES),
    // Router-level refusals skip the hooks: answer them as problems with our headers too. A path
    // parameter longer than any id we issue names nothing (404); an undecodable URL is malformed.
    frameworkErrors: (error, request, reply) => {
      reply.header('X-Service-Request-ID', request.id);
      for (const [name, value] of Object.entries(responseHeaders)) reply.header(name, value);
      const problem =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new DomainError('not-found', 'a path parameter is longer than any id this API issues')
          : new DomainError('malformed-request', 'the URL is not validly percent-encoded');
      return sendProblem(request, reply, problem);
    },
    // Requests Node's HTTP parser rejects never reach Fastify's hooks: answer them in our format too.
    // A deadline that ran out (http/deadlines.ts) is a 408; a socket that already carries an answer
    // (a request answered before its body arrived, the body still trickling) is simply closed.
    // The answers are written a slice at a time (slicedWork.ts): a deadline that thousands of idle
    // sockets reach together would otherwise hold the event loop while every 408 is written.
    clientErrorHandler: (error: Error & { code?: string }, socket) => {
      const answered = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
      if (!socket.writable || error.code === 'ECONNRESET' || answered) {
        socket.destroy();
        return;
      }
      // Node finds an expired socket again at its next check until the socket closes: one answer each.
      if (clientErrorsQueued.has(socket)) return;
      clientErrorsQueued.add(socket);
      clientErrorAnswers.add(() => {
        if (socket.writable) answerClientError(error, socket);
      });
    },
  });

  function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
    const slug =
      error.code === 'HPE_HEADER_OVERFLOW' ? 'headers-too-large' : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'request-timeout' : 'malformed-request';
    const info = PROBLEM_TYPES[slug];
    const requestId = `req_${randomBytes(12).toString('base64url')}`;
    const body = JSON.stringify({ type: problemTypeUri(slug), title: info.title, status: info.status, requestId });
    socket.end(
      `HTTP/1.1 ${info.status} ${STATUS_TEXT[info.status]}\r\n` +
        `Content-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Service-Request-ID: ${requestId}\r\n` +
        Object.entries(responseHeaders).map(([name, value]) => `${name}: ${value}\r\n`).join('') +
        `Connection: close\r\n\r\n${body}`,
    );
  }

  await app.register(requestContextPlugin, { lifecycle: options.lifecycle ?? { draining: false }, headers: responseHeaders });
  await app.register(errorsPlugin);
  await app.register(cookie);
  await app.register(authPlugin, { services });
  await app.register(oversizedBodyPlugin);
  // Only JSON is accepted (README): Fastify's built-in text/plain parser would let a text body
  // reach the routes' validation (a 400) instead of the documented 415.
  app.removeContentTypeParser('text/plain');
  const routeMethods = new RouteMethods();
  routeMethods.watch(app);
  guardApiRoutes(app);

  await app.register(segmentationRoutes, { services });
  await app.register(accountRoutes, { services, cookies: options.cookies ?? { secure: 'auto' } });
  await app.register(projectRoutes, { services });
  await app.register(jobRoutes, { services });
  await app.register(learnedRoutes, { services });
  await app.register(docsRoutes);

  // Public: up or down, nothing else. Details (database, workers, instance) only on this machine
  // (loopback, or the client address behind a trusted proxy) or with the operator's HEALTH_TOKEN.
  apiRoute(app, 'health', {}, async (request, reply) => {
    const detailed =
      isLoopbackHost(request.ip) || (options.healthToken !== undefined && request.headers.authorization === `Bearer ${options.healthToken}`);
    try {
      await services.db.kysely.selectFrom('accounts').select('id').limit(1).execute();
    } catch (error) {
      request.log.error({ err: error }, 'health: database unreachable');
      return reply.code(503).send(detailed ? { status: 'down', database: services.db.dialect, error: String(error) } : { status: 'down' });
    }
    if (!detailed) return { status: 'ok' };
    return { status: 'ok', database: services.db.dialect, inference: services.backend.description, instance: services.instanceId };
  });

  const staticDir = options.staticDir ? resolve(options.staticDir) : undefined;
  const spaIndex = staticDir && existsSync(join(staticDir, 'index.html'));
  if (staticDir && spaIndex) {
    await app.register(fastifyStatic, { root: staticDir, wildcard: false, index: ['index.html'] });
  }

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    // Client-side routes of the SPA get its index.html; API paths and other methods get a problem.
    if (spaIndex && request.method === 'GET' && !path.startsWith('/api/') && !/\.[a-z0-9]+$/i.test(path)) {
      return reply.type('text/html; charset=utf-8').sendFile('index.html');
    }
    const allowed = routeMethods.allowed(path);
    if (allowed.length) {
      reply.header('Allow', allowed.join(', '));
      return sendProblem(request, reply, new DomainError('method-not-allowed', `${path} answers ${allowed.join(', ')}, not ${request.method}`));
    }
    return sendProblem(request, reply, new DomainError('not-found', `no route for ${request.method} ${path}`));
  });

  return app;
}
