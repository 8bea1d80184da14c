import { describe, expect, it } from 'vitest';
import type { Job } from '../../contract/jobs';
import { applyJobEvent } from './projectStore';

const job = (id: string, extra: Partial<Job> = {}): Job => ({ id, kind: 'text', state: 'queued', prompts: ['cat'], total: 3, done: 0, failed: 0, createdBy: 'a@example.com', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', ...extra });

describe('applyJobEvent', () => {
  it("updates the listed job's state and counts, leaving the others as they were", () => {
    const jobs = [job('j2'), job('j1', { state: 'done', done: 3 })];
    const next = applyJobEvent(jobs, { type: 'job', jobId: 'j2', state: 'running', done: 1, failed: 1, total: 3 });
    expect(next).toEqual([job('j2', { state: 'running', done: 1, failed: 1 }), jobs[1]]);
  });

  it('says so when the job is not listed (started in another browser), so the list is fetched again', () => {
    expect(applyJobEvent([job('j1')], { type: 'job', jobId: 'j9', state: 'running', done: 0, failed: 0, total: 5 })).toBeNull();
  });
});
