/**
 * Projects on the server (issue 28): images, classes with stable ids, objects with their outlines
 * (and optionally masks), review states and who changed them. An image's annotations carry a
 * revision: a write names the revision it was made on, and a stale write is refused with the
 * current revision and annotations (409 `revision-conflict`), so nothing is lost.
 */
import { z } from 'zod';
import { DisplayName, hasControlCharacter, ImageFileName } from '../annotations/names';

export const ProjectRole = z.enum(['owner', 'annotator', 'reviewer']);
export type ProjectRole = z.infer<typeof ProjectRole>;
/** Roles a member can be given; the owner is the project's creator, implicitly. */
export const MemberRole = z.enum(['annotator', 'reviewer']);
export type MemberRole = z.infer<typeof MemberRole>;

export const ProjectClass = z.object({
  id: z.number().int().positive().describe('Stable: what every export writes as the category id, whatever the order.'),
  name: DisplayName(100),
  color: z.string().regex(/^#[0-9a-fA-F]{6}$/),
});
export type ProjectClass = z.infer<typeof ProjectClass>;

const ProjectClasses = z
  .array(ProjectClass)
  .max(1000)
  .refine((classes) => new Set(classes.map((c) => c.id)).size === classes.length, 'class ids must be unique');

export const CreateProjectRequest = z.object({
  name: DisplayName(200),
  classes: ProjectClasses.optional(),
});

export const Project = z.object({
  id: z.string(),
  name: z.string(),
  owner: z.string().describe("The owner's email."),
  role: ProjectRole.describe('Your role in this project.'),
  classes: z.array(ProjectClass),
  imageCount: z.number().int().nonnegative(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Project = z.infer<typeof Project>;

export const ProjectList = z.object({ projects: z.array(Project) });

export const UpdateClassesRequest = z.object({ classes: ProjectClasses });

export const AddImageRequest = z.object({
  name: ImageFileName.describe('File name, as exports write it: its last path segment (`photos/a.png` is stored as `a.png`); control characters and direction marks are refused.'),
  image: z.string().min(1).describe('The file as Base64, optionally behind a `data:<media_type>;base64,` prefix, like the segmentation endpoints.'),
});

export const ProjectImage = z.object({
  id: z.string(),
  name: z.string(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  sha256: z.string().describe('SHA-256 (hex) of the stored file: the same bytes are stored once, whoever uploads them.'),
  bytes: z.number().int().positive(),
  revision: z.number().int().nonnegative().describe("The revision of the image's annotations."),
  assignee: z.string().nullable().optional().describe('Email of the member the owner assigned this image to, if any.'),
  createdAt: z.string(),
});
export type ProjectImage = z.infer<typeof ProjectImage>;
export const ProjectImageList = z.object({ images: z.array(ProjectImage) });
/** The longest side of an image's thumbnail (`GET …/images/{imageId}/thumbnail`), in pixels; never enlarged. */
export const PROJECT_THUMBNAIL_MAX_SIDE = 128;

/** The object on the wire is the annotation room's (src/annotations/wire.ts): one schema for the studio, the server and the files. */
export { AnnotationObject, ProposedBy, ReviewState } from '../annotations/wire';
import { AnnotationObject } from '../annotations/wire';
import { FORMATS } from '../annotations/formats/registry';

export const ImageAnnotations = z.object({
  imageId: z.string(),
  revision: z.number().int().nonnegative(),
  objects: z.array(AnnotationObject),
  updatedBy: z.string().nullable(),
  updatedAt: z.string().nullable(),
});
export type ImageAnnotations = z.infer<typeof ImageAnnotations>;

/** Every image's annotations at once: opening a project is one request, not one per image. */
export const ProjectAnnotations = z.object({ annotations: z.array(ImageAnnotations) });

/**
 * How much one image, and one project, may hold: an export reads every vertex of the project, so
 * these bound what one export costs. A write past them is answered 413 `annotations-too-large`
 * before it is validated or stored; the README and OpenAPI state them.
 */
export const ANNOTATION_LIMITS = {
  objectsPerImage: 2_000,
  /** Polygon vertices (outer rings and holes) of all of an image's objects together. */
  verticesPerImage: 250_000,
  /** Polygon vertices of every image of a project together. */
  verticesPerProject: 2_500_000,
  /** Run lengths of all of an image's object masks together. */
  maskRunsPerImage: 2_000_000,
} as const;

/** Revisions are 32-bit integers in the database: a write names at most the one below, so the next still fits. */
export const MAX_REVISION = 2_147_483_647;

export const WriteAnnotationsRequest = z.object({
  revision: z.number().int().nonnegative().max(MAX_REVISION - 1).describe('The revision these edits were made on (or send `If-Match: "<revision>"`); at most 2147483646.'),
  objects: z.array(AnnotationObject).max(10_000),
});

export const AddMemberRequest = z.object({ email: z.string().trim().toLowerCase().pipe(z.email()), role: MemberRole });
export const Member = z.object({
  email: z.string(),
  role: ProjectRole,
  addedAt: z.string().nullable(),
  invited: z.boolean().optional().describe('true while the invitation is not accepted (POST …/join): until then the project is hidden from them.'),
});
export const MemberList = z.object({ members: z.array(Member) });

/**
 * The formats a project exports in: the format registry's (src/annotations/formats/registry.ts), so a
 * new format is served without a second list; those made of the photos themselves (one folder per
 * class) are the studio's alone.
 */
export const EXPORT_FORMATS = FORMATS.filter((f) => !f.requiresImages).map((f) => f.id) as [string, ...string[]];
export const ExportFormat = z.enum(EXPORT_FORMATS);
export type ExportFormat = z.infer<typeof ExportFormat>;
