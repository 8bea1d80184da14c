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

describe('project roles at team scale (issue 38)', () => {
  it('leaves accepting and rejecting to owners and reviewers, starting jobs to owners and annotators, assigning to the owner', () => {
    expect(['owner', 'annotator', 'reviewer'].map((r) => roleAllows(r as 'owner', 'review'))).toEqual([true, false, true]);
    expect(['owner', 'annotator', 'reviewer'].map((r) => roleAllows(r as 'owner', 'start-job'))).toEqual([true, true, false]);
    expect(['owner', 'annotator', 'reviewer'].map((r) => roleAllows(r as 'owner', 'assign'))).toEqual([true, false, false]);
  });
});
