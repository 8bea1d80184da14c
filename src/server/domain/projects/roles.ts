/**
 * What each role of a project may do. Someone who is not a member gets 404 on every path of the
 * project (access.ts): a refusal here is only ever given to members, who know the project exists.
 */
import type { ProjectRole } from '../../../contract/projects';

export type ProjectAction = 'read' | 'annotate' | 'add-image' | 'delete-image' | 'edit-classes' | 'manage-members' | 'export';

const ALLOWED: Record<ProjectRole, ReadonlySet<ProjectAction>> = {
  owner: new Set(['read', 'annotate', 'add-image', 'delete-image', 'edit-classes', 'manage-members', 'export']),
  annotator: new Set(['read', 'annotate', 'add-image', 'delete-image', 'export']),
  // A reviewer judges what is there (review states and corrections), adds and removes no images.
  reviewer: new Set(['read', 'annotate', 'export']),
};

export function roleAllows(role: ProjectRole, action: ProjectAction): boolean {
  return ALLOWED[role].has(action);
}
