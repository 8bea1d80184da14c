import { describe, expect, it } from 'vitest';
import { roleAllows } from './roles';

describe('project roles', () => {
  it('lets only the owner manage members, and keeps reviewers from adding or deleting images', () => {
    expect(roleAllows('owner', 'manage-members')).toBe(true);
    expect(roleAllows('annotator', 'manage-members')).toBe(false);
    expect(roleAllows('reviewer', 'manage-members')).toBe(false);
    expect(roleAllows('reviewer', 'delete-image')).toBe(false);
    expect(roleAllows('reviewer', 'add-image')).toBe(false);
    expect(roleAllows('annotator', 'delete-image')).toBe(true);
  });

  it('lets every member read, annotate and export', () => {
    for (const role of ['owner', 'annotator', 'reviewer'] as const) {
      expect(roleAllows(role, 'read') && roleAllows(role, 'annotate') && roleAllows(role, 'export')).toBe(true);
    }
  });
});
