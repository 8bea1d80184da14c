/**
 * What each role of a project may do. Someone who is not a member gets 404 on every path of the
 * project (access.ts): a refusal here is only ever given to members, who know the project exists.
 */
import type { ProjectRole } from '../../../contract/projects';

export type ProjectAction = 'read' | 'annotate' | 'review' | 'add-image' | 'delete-image' | 'edit-classes' | 'manage-members' | 'assign' | 'start-job' | 'export';

const ALLOWED: Record<ProjectRole, ReadonlySet<ProjectAction>> = {
  owner: new Set(['read', 'annotate', 'review', 'add-image', 'delete-image', 'edit-classes', 'manage-members', 'assign', 'start-job', 'export']),
  // An annotator proposes and labels; accepting or rejecting is left to an owner or reviewer (issue 38).
  annotator: new Set(['read', 'annotate', 'add-image', 'delete-image', 'start-job', 'export']),
  // A reviewer judges what is there (review states and corrections), adds and removes no images, starts no jobs.
  reviewer: new Set(['read', 'annotate', 'review', 'export']),
};

export function roleAllows(role: ProjectRole, action: ProjectAction): boolean {
  return ALLOWED[role].has(action);
}
