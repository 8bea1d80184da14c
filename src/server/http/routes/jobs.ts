/**
 * Issue 38 over HTTP: auto-label jobs, the live event stream of a project (Server-Sent Events),
 * invitations and image assignment. Thin adapters onto domain/jobs and domain/projects.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { IDEMPOTENCY_KEY_PATTERN } from '../../../contract/limits';
import { AssignImageRequest, CreateJobRequest } from '../../../contract/jobs';
import { DomainError } from '../../domain/errors';
import type { Services } from '../../domain/services';
import { parseBody } from '../validation';
import { apiRoute } from '../apiRoutes';

type ProjectParams = { Params: { projectId: string } };
type JobParams = { Params: { projectId: string; jobId: string } };
type ImageParams = { Params: { projectId: string; imageId: string } };

/** A comment line now and then keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;

function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header) || !IDEMPOTENCY_KEY_PATTERN.test(header)) {
    throw new DomainError('invalid-header', 'Idempotency-Key must be 1 to 128 characters: letters, digits, ".", "_", ":", "-"');
  }
  return header;
}

/** `Last-Event-ID` (what EventSource sends when it reconnects), or `?lastEventId=` for a first connection that resumes. */
function lastEventIdOf(header: string | string[] | undefined, query: unknown): number | undefined {
  const fromQuery = (query as { lastEventId?: unknown } | undefined)?.lastEventId;
  const raw = (Array.isArray(header) ? header[0] : header) ?? (typeof fromQuery === 'string' ? fromQuery : undefined);
  if (raw === undefined || raw.trim() === '') return undefined;
  if (!/^\d{1,15}$/.test(raw.trim())) throw new DomainError('invalid-header', 'Last-Event-ID must be the id of an event of this stream');
  return Number(raw.trim());
}

export async function jobRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const { jobs, projects, projectEvents } = services;
  const any = { config: { auth: 'any' as const } };
  const small = { ...any, bodyLimit: 4 * 1024 * 1024 };
  const account = (request: { principal: { accountId: string } | null }) => request.principal!.accountId;

  apiRoute<ProjectParams>(app, 'createJob', small, async (request, reply) => {
    const key = idempotencyKeyOf(request.headers['idempotency-key']);
    const body = parseBody(CreateJobRequest, request.body);
    const { job, created } = await jobs.create(account(request), request.params.projectId, body, key);
    if (!created) reply.header('X-Idempotent-Replayed', 'true');
    return reply.code(202).header('Location', `/api/v1/projects/${request.params.projectId}/jobs/${job.id}`).send(job);
  });

  apiRoute<ProjectParams>(app, 'listJobs', any, async (request) => ({ jobs: await jobs.list(account(request), request.params.projectId) }));

  apiRoute<JobParams>(app, 'getJob', any, async (request) => jobs.get(account(request), request.params.projectId, request.params.jobId));

  apiRoute<JobParams>(app, 'cancelJob', any, async (request) => jobs.cancel(account(request), request.params.projectId, request.params.jobId));

  apiRoute(app, 'listInvitations', any, async (request) => ({ invitations: await projects.invitations(account(request)) }));

  apiRoute<ProjectParams>(app, 'joinProject', any, async (request) => projects.join(account(request), request.params.projectId));

  apiRoute<ImageParams>(app, 'assignProjectImage', { ...any, bodyLimit: 16 * 1024 }, async (request) => {
    const { assignee } = parseBody(AssignImageRequest, request.body);
    return projects.assignImage(account(request), request.params.projectId, request.params.imageId, assignee);
  });

  // Open streams end when the server drains, or closing would wait for them forever.
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of open) end();
  });

  apiRoute<ProjectParams>(app, 'projectEvents', any, async (request, reply: FastifyReply) => {
    const { projectId } = request.params;
    await projects.authorize(account(request), projectId, 'read');
    const after = lastEventIdOf(request.headers['last-event-id'], request.query) ?? (await projectEvents.latestId(projectId));
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // Tells EventSource how soon to reconnect, and gives a new reader its starting point.
    raw.write(`retry: 1000\nid: ${after}\n\n`);
    let ended = false;
    let stop: (() => void) | undefined;
    const end = () => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      stop?.();
      open.delete(end);
      raw.end();
    };
    const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
    open.add(end);
    raw.on('close', end);
    stop = await projectEvents.follow(projectId, after, async ({ id, event }) => {
      if (ended) return;
      // Unnamed events: EventSource's onmessage gets them all, each saying its type in its data.
      const ok = raw.write(`id: ${id}\ndata: ${JSON.stringify(event)}\n\n`);
      if (!ok) await new Promise<void>((resolve) => (raw.once('drain', resolve), raw.once('close', resolve)));
    });
    if (ended) stop();
  });
}
