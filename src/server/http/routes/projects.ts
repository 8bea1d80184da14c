/** Projects (issue 28): thin adapters onto domain/projects. Key or session (+ CSRF) on every route. */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { LIMITS } from '../../../contract/limits';
import {
  AddImageRequest,
  AddMemberRequest,
  CreateProjectRequest,
  ExportFormat,
  UpdateClassesRequest,
} from '../../../contract/projects';
import { DomainError } from '../../domain/errors';
import { decodeImageField } from '../../domain/imageField';
import { annotationsJsonBytes } from '../../domain/projects/annotationCommit';
import type { StoredAnnotations } from '../../domain/projects/projects';
import { THUMBNAIL_MEDIA_TYPE } from '../../domain/projects/thumbnails';
import type { Services } from '../../domain/services';
import { parseBody } from '../validation';
import { apiRoute } from '../apiRoutes';

type ProjectParams = { Params: { projectId: string } };
type ImageParams = { Params: { projectId: string; imageId: string } };

/** `If-Match: "<revision>"` (or W/"…"), when the body does not name the revision itself. */
export function ifMatchRevision(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value && /^(?:W\/)?"(\d{1,15})"$/.exec(value.trim());
  return match ? Number(match[1]) : undefined;
}

/** `If-None-Match` lists `etag` (or is `*`); weak tags compare equal to strong ones, as RFC 9110 says for GET. */
function ifNoneMatches(header: string | string[] | undefined, etag: string): boolean {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value) return false;
  return value.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/** ImageAnnotations as JSON, its stored objects spliced in as they are (never parsed and serialised again here). */
function annotationsJson({ objectsJson, ...rest }: StoredAnnotations): string {
  return `${JSON.stringify(rest).slice(0, -1)},"objects":${objectsJson}}`;
}

const ExportQuery = z.object({ format: ExportFormat });

export async function projectRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const projects = services.projects;
  const any = { config: { auth: 'any' as const } };
  const small = { ...any, bodyLimit: 64 * 1024 };
  const account = (request: { principal: { accountId: string } | null }) => request.principal!.accountId;

  apiRoute(app, 'createProject', small, async (request, reply) => {
    const { name, classes } = parseBody(CreateProjectRequest, request.body);
    const project = await projects.create(account(request), name, classes);
    return reply.code(201).header('Location', `/api/v1/projects/${project.id}`).send(project);
  });

  apiRoute(app, 'listProjects', any, async (request) => ({ projects: await projects.list(account(request)) }));

  apiRoute<ProjectParams>(app, 'getProject', any, async (request) => projects.get(account(request), request.params.projectId));

  apiRoute<ProjectParams>(app, 'updateProjectClasses', small, async (request) => {
    const { classes } = parseBody(UpdateClassesRequest, request.body);
    return projects.updateClasses(account(request), request.params.projectId, classes);
  });

  apiRoute<ProjectParams>(app, 'addProjectImage', { ...any, bodyLimit: LIMITS.imageMaxChars + 16 * 1024 }, async (request, reply) => {
    const { name, image } = parseBody(AddImageRequest, request.body);
    if (image.length > LIMITS.imageMaxChars) throw new DomainError('image-too-large');
    const { image: stored, created } = await projects.addImage(account(request), request.params.projectId, name, decodeImageField(image));
    return reply.code(created ? 201 : 200).send(stored);
  });

  apiRoute<ProjectParams>(app, 'listProjectImages', any, async (request) => ({
    images: await projects.listImages(account(request), request.params.projectId),
  }));

  apiRoute<ImageParams>(app, 'projectImageFile', any, async (request, reply) => {
    const file = await projects.imageFile(account(request), request.params.projectId, request.params.imageId);
    // Content-addressed: the same URL always answers the same bytes.
    return reply.header('ETag', `"${file.sha256}"`).header('Cache-Control', 'private, max-age=31536000, immutable').type('application/octet-stream').send(Buffer.from(file.bytes));
  });

  apiRoute<ImageParams>(app, 'projectImageThumbnail', any, async (request, reply) => {
    const { tag, render } = await projects.imageThumbnail(account(request), request.params.projectId, request.params.imageId);
    const etag = `"${tag}"`;
    reply.header('ETag', etag).header('Cache-Control', 'private, max-age=31536000, immutable');
    if (ifNoneMatches(request.headers['if-none-match'], etag)) return reply.code(304).send();
    return reply.type(THUMBNAIL_MEDIA_TYPE).send(await render());
  });

  apiRoute<ImageParams>(app, 'deleteProjectImage', any, async (request, reply) => {
    await projects.deleteImage(account(request), request.params.projectId, request.params.imageId);
    return reply.code(204).send();
  });

  apiRoute<ProjectParams>(app, 'readProjectAnnotations', any, async (request, reply) => {
    const all = await projects.allAnnotations(account(request), request.params.projectId);
    return reply.type('application/json; charset=utf-8').send(`{"annotations":[${all.map(annotationsJson).join(',')}]}`);
  });

  apiRoute<ImageParams>(app, 'readAnnotations', any, async (request, reply) => {
    const annotations = await projects.readAnnotations(account(request), request.params.projectId, request.params.imageId);
    return reply.header('ETag', `"${annotations.revision}"`).type('application/json; charset=utf-8').send(annotationsJson(annotations));
  });

  // The body stays bytes: a large one is parsed, validated and written by the project workers (off the event loop).
  await app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    apiRoute<ImageParams>(scope, 'writeAnnotations', { ...any, bodyLimit: 16 * 1024 * 1024 }, async (request, reply) => {
      const body = request.body instanceof Uint8Array ? request.body : new Uint8Array();
      const written = await projects.writeAnnotations(account(request), request.params.projectId, request.params.imageId, {
        body,
        ifMatchRevision: ifMatchRevision(request.headers['if-match']),
      });
      return reply.header('ETag', `"${written.revision}"`).type('application/json; charset=utf-8').send(annotationsJsonBytes(written));
    });
  });

  apiRoute<ProjectParams>(app, 'listProjectMembers', any, async (request) => ({
    members: await projects.listMembers(account(request), request.params.projectId),
  }));

  apiRoute<ProjectParams>(app, 'addProjectMember', small, async (request, reply) => {
    const { email, role } = parseBody(AddMemberRequest, request.body);
    const { created, ...member } = await projects.addMember(account(request), request.params.projectId, email, role);
    return reply.code(created ? 201 : 200).send(member);
  });

  apiRoute<{ Params: { projectId: string; email: string } }>(app, 'removeProjectMember', any, async (request, reply) => {
    await projects.removeMember(account(request), request.params.projectId, request.params.email);
    return reply.code(204).send();
  });

  apiRoute<ProjectParams & { Querystring: Record<string, string> }>(app, 'exportProject', any, async (request, reply) => {
    const { format } = parseBody(ExportQuery, { ...request.query });
    const file = await services.projectWorkers.export(await projects.dataset(account(request), request.params.projectId), format);
    // A view of the bytes the worker handed over, not a copy of a file of many megabytes.
    const body = Buffer.from(file.body.buffer, file.body.byteOffset, file.body.byteLength);
    return reply.type(file.contentType).header('Content-Disposition', `attachment; filename="${file.fileName}"`).send(body);
  });
}
