/**
 * The projects routes of the API (contract/projects.ts), for the studio and for tests in Node: how a
 * request is authenticated is the caller's (the browser's session cookie and CSRF header, or an API
 * key), so the same client runs against a real server in both. Answers are parsed by the contract.
 */
import type { z } from 'zod';
import { InvitationList, Job, JobList, type CreateJobRequest } from '../../contract/jobs';
import { ImageAnnotations, Member, Project, ProjectImage, ProjectAnnotations, ProjectImageList, ProjectList, type AnnotationObject, type MemberRole, type ProjectClass } from '../../contract/projects';
import { jsonBody, readProblem } from '../../contract/problems';
import { LearnedModel } from '../../contract/learned';
import type { LearnedClassesState } from '../../engine/learn/learnedClasses';

export interface ProjectTransport {
  readonly baseUrl: string;
  /** Headers that authenticate a request of this method (a key, or the CSRF token beside the cookie). */
  authHeaders(method: string): Record<string, string>;
  /** `include` in the browser, so the session cookie goes along. */
  readonly credentials?: RequestCredentials;
}

export class ProjectApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly problemType: string | undefined,
    readonly body: Readonly<Record<string, unknown>>,
  ) {
    super(message);
    this.name = 'ProjectApiError';
  }
}

/** A learned model written on a stale revision: nothing was written; read the model again, learn into it and write with its revision. */
export class LearnedModelConflict extends Error {
  constructor(readonly currentRevision: number) {
    super(`the learned model is at revision ${currentRevision} on the server`);
    this.name = 'LearnedModelConflict';
  }
}

/** A write on a stale revision: nothing was written; the server's revision and objects come with it. */
export class RevisionConflict extends Error {
  constructor(readonly current: ImageAnnotations) {
    super(`the image is at revision ${current.revision} on the server`);
    this.name = 'RevisionConflict';
  }
}

export class ProjectApi {
  constructor(private readonly transport: ProjectTransport) {}

  private url = (path: string) => `${this.transport.baseUrl.replace(/\/+$/, '')}${path}`;

  private async request(method: string, path: string, body?: unknown, priority?: RequestPriority): Promise<Response> {
    const headers: Record<string, string> = { ...this.transport.authHeaders(method) };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(this.url(path), {
      method,
      priority,
      headers,
      credentials: this.transport.credentials,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.ok) return response;
    const problem = readProblem(await jsonBody(response));
    const { type, message } = problem;
    if (response.status === 409 && type?.endsWith('/revision-conflict')) throw new RevisionConflict(ImageAnnotations.parse(problem.body.current));
    if (response.status === 409 && type?.endsWith('/learned-model-conflict')) throw new LearnedModelConflict(Number(problem.body.currentRevision));
    throw new ProjectApiError(`${response.status}: ${message ?? response.statusText}`, response.status, type, problem.body);
  }

  private async json<T>(schema: z.ZodType<T>, method: string, path: string, body?: unknown): Promise<T> {
    return schema.parse(await (await this.request(method, path, body)).json());
  }

  private project = (id: string) => `/api/v1/projects/${encodeURIComponent(id)}`;
  private image = (projectId: string, imageId: string) => `${this.project(projectId)}/images/${encodeURIComponent(imageId)}`;

  list = async () => (await this.json(ProjectList, 'GET', '/api/v1/projects')).projects;
  get = (id: string) => this.json(Project, 'GET', this.project(id));
  create = (name: string, classes: ProjectClass[]) => this.json(Project, 'POST', '/api/v1/projects', { name, classes });
  updateClasses = (id: string, classes: ProjectClass[]) => this.json(Project, 'PUT', `${this.project(id)}/classes`, { classes });
  images = async (id: string) => (await this.json(ProjectImageList, 'GET', `${this.project(id)}/images`)).images;
  /** The file as Base64 (what the API takes, like /pvs). */
  addImage = (id: string, name: string, base64: string) => this.json(ProjectImage, 'POST', `${this.project(id)}/images`, { name, image: base64 });
  /** `priority: 'low'` for files fetched in the background, so what is on screen goes first. */
  imageFile = async (projectId: string, imageId: string, priority?: RequestPriority) => (await this.request('GET', `${this.image(projectId, imageId)}/file`, undefined, priority)).blob();
  /** The thumbnail's URL, for an `<img>` (same authorization as the file: the session cookie goes along). */
  thumbnailUrl = (projectId: string, imageId: string) => this.url(`${this.image(projectId, imageId)}/thumbnail`);
  annotations = (projectId: string, imageId: string) => this.json(ImageAnnotations, 'GET', `${this.image(projectId, imageId)}/annotations`);
  /** Every image's annotations, in the order of the image list. */
  allAnnotations = async (projectId: string) => (await this.json(ProjectAnnotations, 'GET', `${this.project(projectId)}/annotations`)).annotations;
  /** Throws RevisionConflict when the image is no longer at `revision`. */
  writeAnnotations = (projectId: string, imageId: string, revision: number, objects: AnnotationObject[]) =>
    this.json(ImageAnnotations, 'PUT', `${this.image(projectId, imageId)}/annotations`, { revision, objects });
  share = (id: string, email: string, role: MemberRole) => this.json(Member, 'POST', `${this.project(id)}/members`, { email, role });
  /** Projects shared with this account that it has not joined yet (they stay hidden until it does). */
  invitations = async () => (await this.json(InvitationList, 'GET', '/api/v1/invitations')).invitations;
  join = (id: string) => this.json(Project, 'POST', `${this.project(id)}/join`, {});
  /** The project's learned model with its revision, or null when it has none yet. */
  getLearnedModel = async (id: string): Promise<LearnedModel | null> => {
    try {
      return await this.json(LearnedModel, 'GET', `${this.project(id)}/learned`);
    } catch (error) {
      // The project itself is known to the caller: its 404 here means "no model yet".
      if (error instanceof ProjectApiError && error.status === 404) return null;
      throw error;
    }
  };
  /** Replaces the model learned on `revision` (0: the project had none); throws LearnedModelConflict when someone wrote first. */
  putLearnedModel = (id: string, revision: number, model: LearnedClassesState) => this.json(LearnedModel, 'PUT', `${this.project(id)}/learned`, { revision, model });
  jobs = async (id: string) => (await this.json(JobList, 'GET', `${this.project(id)}/jobs`)).jobs;
  startJob = (id: string, request: CreateJobRequest) => this.json(Job, 'POST', `${this.project(id)}/jobs`, request);
  cancelJob = (id: string, jobId: string) => this.json(Job, 'DELETE', `${this.project(id)}/jobs/${encodeURIComponent(jobId)}`);
  /** The project's Server-Sent Events stream, for an EventSource (which sends the session cookie itself). */
  eventsUrl = (id: string) => this.url(`${this.project(id)}/events`);
}
