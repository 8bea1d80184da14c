/**
 * Projects at team scale (issue 38): auto-label jobs that run on the server over a project's
 * images, the live event stream of a project, invitations and image assignment.
 */
import { z } from 'zod';
import { LIMITS } from './limits';
import { MemberRole } from './projects';

export const JobKind = z.enum(['everything', 'text', 'learned']);
export type JobKind = z.infer<typeof JobKind>;

/** `paused`: the payer ran out of credits; the job resumes by itself once credits arrive. */
export const JobState = z.enum(['queued', 'running', 'paused', 'done', 'cancelled', 'failed']);
export type JobState = z.infer<typeof JobState>;

export const CreateJobRequest = z
  .object({
    kind: JobKind,
    prompts: z.array(z.string().min(LIMITS.promptMinChars).max(LIMITS.promptMaxChars)).min(1).max(LIMITS.promptsMax).optional().describe('Text prompts: required for `text`, refused otherwise.'),
    imageIds: z.array(z.string().min(1).max(100)).min(1).max(100_000).optional().describe('The images to label; every image of the project when left out.'),
  })
  .superRefine((request, ctx) => {
    if (request.kind === 'text' && !request.prompts) ctx.addIssue({ code: 'custom', path: ['prompts'], message: 'a text job needs prompts' });
    if (request.kind !== 'text' && request.prompts) ctx.addIssue({ code: 'custom', path: ['prompts'], message: `a ${request.kind} job takes no prompts` });
  });
export type CreateJobRequest = z.infer<typeof CreateJobRequest>;

export const Job = z.object({
  id: z.string(),
  kind: JobKind,
  state: JobState,
  prompts: z.array(z.string()).optional(),
  total: z.number().int().nonnegative().describe('Images the job labels.'),
  done: z.number().int().nonnegative().describe('Images labelled (their proposals written, or nothing found and refunded).'),
  failed: z.number().int().nonnegative().describe('Images that failed (refunded).'),
  createdBy: z.string().describe('Email of who started it (and pays for it).'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Job = z.infer<typeof Job>;
export const JobList = z.object({ jobs: z.array(Job) });

/** What `GET …/events` sends (the SSE `data:` line), each with its `id:` for Last-Event-ID. */
export const AnnotationsEvent = z.object({ type: z.literal('annotations'), imageId: z.string(), revision: z.number().int(), changedBy: z.string().nullable() });
export const JobEvent = z.object({ type: z.literal('job'), jobId: z.string(), state: JobState, done: z.number().int(), failed: z.number().int(), total: z.number().int() });
/** The project's learned model was replaced (GET …/learned for the new one). */
export const LearnedModelEvent = z.object({ type: z.literal('learned'), revision: z.number().int(), changedBy: z.string().nullable() });
/** A photo was added to the project (GET …/images for its record) or removed from it. */
export const ImageAddedEvent = z.object({ type: z.literal('image-added'), imageId: z.string(), changedBy: z.string().nullable() });
export const ImageRemovedEvent = z.object({ type: z.literal('image-removed'), imageId: z.string(), changedBy: z.string().nullable() });
export const ProjectEvent = z.discriminatedUnion('type', [AnnotationsEvent, JobEvent, LearnedModelEvent, ImageAddedEvent, ImageRemovedEvent]);
export type ProjectEvent = z.infer<typeof ProjectEvent>;

export const Invitation = z.object({ projectId: z.string(), projectName: z.string(), owner: z.string(), role: MemberRole, invitedAt: z.string() });
export const InvitationList = z.object({ invitations: z.array(Invitation) });

export const AssignImageRequest = z.object({ assignee: z.string().trim().toLowerCase().pipe(z.email()).nullable().describe('A member of the project, or null to unassign.') });
