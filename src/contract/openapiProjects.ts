/**
 * The projects part of the OpenAPI document (issue 28): schemas from contract/projects.ts and the
 * paths of /api/v1/projects. Kept apart from openapi.ts so the route-table work can adopt it whole.
 */
import type { z } from 'zod';
import {
  AddImageRequest,
  AddMemberRequest,
  CreateProjectRequest,
  ImageAnnotations,
  Member,
  MemberList,
  Project,
  ProjectImage,
  ProjectImageList,
  ProjectList,
  UpdateClassesRequest,
  WriteAnnotationsRequest,
} from './projects';
import type { PROBLEM_TYPES } from './problems';

type JsonObject = Record<string, unknown>;
type Slug = keyof typeof PROBLEM_TYPES;

export interface OpenApiHelpers {
  schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonObject;
  json(name: string): JsonObject;
  problem(description: string, slugs: Slug[]): JsonObject;
}

export function projectSchemas({ schemaOf }: OpenApiHelpers): Record<string, JsonObject> {
  return {
    CreateProjectRequest: schemaOf(CreateProjectRequest, 'input'),
    Project: schemaOf(Project, 'output'),
    ProjectList: schemaOf(ProjectList, 'output'),
    UpdateClassesRequest: schemaOf(UpdateClassesRequest, 'input'),
    AddImageRequest: schemaOf(AddImageRequest, 'input'),
    ProjectImage: schemaOf(ProjectImage, 'output'),
    ProjectImageList: schemaOf(ProjectImageList, 'output'),
    ImageAnnotations: schemaOf(ImageAnnotations, 'output'),
    WriteAnnotationsRequest: schemaOf(WriteAnnotationsRequest, 'input'),
    AddMemberRequest: schemaOf(AddMemberRequest, 'input'),
    Member: schemaOf(Member, 'output'),
    MemberList: schemaOf(MemberList, 'output'),
  };
}

export function projectPaths({ json, problem }: OpenApiHelpers, security: unknown[]): Record<string, JsonObject> {
  const path = (name: string, description: string) => ({ name, in: 'path', required: true, description, schema: { type: 'string' } });
  const projectId = path('projectId', 'The project.');
  const imageId = path('imageId', 'An image of the project.');
  const common = {
    '401': problem('No API key or session (or a bad one).', ['unauthenticated']),
    '404': problem('No such project, or it is neither yours nor shared with you (never 403: whether it exists is not told); or no such image or member in it.', ['not-found']),
  };
  const writes = {
    ...common,
    '400': problem('The body does not match the schema.', ['validation-failed', 'malformed-json']),
    '403': problem('Your role does not allow this (members only), or the cookie request lacks the CSRF token.', ['role-forbidden', 'csrf-token-invalid']),
    '415': problem('The body is not `application/json`.', ['unsupported-media-type']),
  };
  const etag = { ETag: { description: 'The revision of the annotations, quoted: `"<revision>"`.', schema: { type: 'string' } } };
  return {
    '/api/v1/projects': {
      post: {
        summary: 'Create a project (you are its owner)',
        security,
        requestBody: { required: true, content: json('CreateProjectRequest') },
        responses: { '201': { description: 'Created', content: json('Project') }, ...writes },
      },
      get: { summary: 'Projects you own and projects shared with you', security, responses: { '200': { description: 'Projects', content: json('ProjectList') }, ...common } },
    },
    '/api/v1/projects/{projectId}': {
      get: { summary: 'One project, with your role in it', security, parameters: [projectId], responses: { '200': { description: 'The project', content: json('Project') }, ...common } },
    },
    '/api/v1/projects/{projectId}/classes': {
      put: {
        summary: "Replace the project's classes (owner); ids are stable and are what exports write",
        security,
        parameters: [projectId],
        requestBody: { required: true, content: json('UpdateClassesRequest') },
        responses: { '200': { description: 'The project', content: json('Project') }, ...writes },
      },
    },
    '/api/v1/projects/{projectId}/images': {
      post: {
        summary: 'Add an image (owner, annotator); stored once per distinct file, counted against the owner quota',
        security,
        parameters: [projectId],
        requestBody: { required: true, content: json('AddImageRequest') },
        responses: {
          '201': { description: 'Added', content: json('ProjectImage') },
          '200': { description: 'The same file is in this project already: that image', content: json('ProjectImage') },
          ...writes,
          '400': problem('The body does not match the schema, or the file is not an image.', ['validation-failed', 'malformed-json', 'invalid-image']),
          '413': problem('The image is over 2,097,152 characters.', ['image-too-large', 'payload-too-large']),
          '507': problem("Storing it would take the owner's account over its storage quota; nothing was stored.", ['storage-quota-exceeded']),
        },
      },
      get: { summary: 'The images of the project with their revisions', security, parameters: [projectId], responses: { '200': { description: 'Images', content: json('ProjectImageList') }, ...common } },
    },
    '/api/v1/projects/{projectId}/images/{imageId}': {
      delete: { summary: 'Remove an image (owner, annotator; not a reviewer)', security, parameters: [projectId, imageId], responses: { '204': { description: 'Removed' }, ...writes } },
    },
    '/api/v1/projects/{projectId}/images/{imageId}/file': {
      get: {
        summary: "The image's file, byte for byte as uploaded",
        security,
        parameters: [projectId, imageId],
        responses: { '200': { description: 'The file (`ETag` = its SHA-256)', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }, ...common },
      },
    },
    '/api/v1/projects/{projectId}/images/{imageId}/annotations': {
      get: {
        summary: "The image's objects and their revision",
        security,
        parameters: [projectId, imageId],
        responses: { '200': { description: 'Annotations', headers: etag, content: json('ImageAnnotations') }, ...common },
      },
      put: {
        summary: "Replace the image's objects, if they are still at the revision you name (body `revision`, or `If-Match: \"<revision>\"`)",
        security,
        parameters: [projectId, imageId, { name: 'If-Match', in: 'header', required: false, description: 'The revision the edits were made on, when the body does not name it.', schema: { type: 'string' } }],
        requestBody: { required: true, content: json('WriteAnnotationsRequest') },
        responses: {
          '200': { description: 'Written: the new revision; each changed object is stamped with who changed it and when', headers: etag, content: json('ImageAnnotations') },
          ...writes,
          '409': problem('Stale revision: someone wrote first. Nothing was written; `currentRevision` and `current` carry what is stored, to merge into and write again.', ['revision-conflict']),
        },
      },
    },
    '/api/v1/projects/{projectId}/members': {
      get: { summary: 'The owner and the members with their roles', security, parameters: [projectId], responses: { '200': { description: 'Members', content: json('MemberList') }, ...common } },
      post: {
        summary: 'Share the project with an account (owner): role `annotator` or `reviewer`; again with another role changes it',
        security,
        parameters: [projectId],
        requestBody: { required: true, content: json('AddMemberRequest') },
        responses: { '201': { description: 'Added', content: json('Member') }, '200': { description: 'Role changed', content: json('Member') }, ...writes },
      },
    },
    '/api/v1/projects/{projectId}/members/{email}': {
      delete: { summary: 'Stop sharing with an account (owner)', security, parameters: [projectId, path('email', "The member's email.")], responses: { '204': { description: 'Removed' }, ...writes } },
    },
    '/api/v1/projects/{projectId}/export': {
      get: {
        summary: "The project as a dataset, written by the studio's own exporters: COCO JSON or a YOLO segmentation zip (labels and data.yaml)",
        security,
        parameters: [projectId, { name: 'format', in: 'query', required: true, schema: { type: 'string', enum: ['coco', 'yolo'] } }],
        responses: {
          '200': { description: 'The dataset file (`Content-Disposition: attachment`)', content: { 'application/json': {}, 'application/zip': { schema: { type: 'string', format: 'binary' } } } },
          '400': problem('Unknown format.', ['validation-failed']),
          ...common,
        },
      },
    },
  };
}
