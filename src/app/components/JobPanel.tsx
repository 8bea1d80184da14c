import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { Job, JobKind } from '../../contract/jobs';
import { cancelProjectJob, startProjectJob } from '../projects/projectSession';
import { useOpenProject } from '../projects/projectStore';

const KIND_TEXT: Record<JobKind, string> = { everything: 'Everything', text: 'Text', learned: 'Learned classes' };
/** `learned` needs the project's learned model on the server (without one the server says so). */
const STARTABLE: readonly JobKind[] = ['text', 'everything', 'learned'];
const RUNNING: ReadonlySet<Job['state']> = new Set(['queued', 'running', 'paused']);
const STATE_NOTE: Partial<Record<Job['state'], string>> = { paused: 'paused: out of credits, resumes when credits arrive' };

/**
 * Auto-label jobs of the open project, run by the server over all its photos: start one (owners
 * and annotators), follow its progress live, cancel it. Its proposals arrive in the studio as
 * unreviewed objects through the event stream.
 */
export function JobPanel({ canStart }: { canStart: boolean }) {
  const jobs = useOpenProject((s) => s.jobs);
  return (
    <div className="jobs" aria-label="Auto-label jobs" role="group">
      {canStart && <StartJobForm />}
      {jobs.length > 0 && (
        <ul className="project-list">
          {jobs.map((job) => (
            <JobRow key={job.id} job={job} canCancel={canStart} />
          ))}
        </ul>
      )}
    </div>
  );
}

function StartJobForm() {
  const [kind, setKind] = useState<JobKind>('text');
  const [prompt, setPrompt] = useState('');
  const start = useMutation({
    mutationFn: () => startProjectJob(kind === 'text' ? { kind, prompts: [prompt.trim()] } : { kind }),
    onSuccess: () => setPrompt(''),
  });
  const ready = kind !== 'text' || prompt.trim().length > 0;
  return (
    <form
      className="row"
      onSubmit={(e) => {
        e.preventDefault();
        if (ready) start.mutate();
      }}
    >
      <select aria-label="Auto-label kind" value={kind} onChange={(e) => setKind(e.target.value as JobKind)}>
        {STARTABLE.map((k) => (
          <option key={k} value={k}>
            {KIND_TEXT[k]}
          </option>
        ))}
      </select>
      {kind === 'text' && <input aria-label="Auto-label prompt" placeholder="what to find, e.g. cat" value={prompt} onChange={(e) => setPrompt(e.target.value)} />}
      <button type="submit" className="small" disabled={!ready || start.isPending} title="Labels every photo of the project on the server, 1 credit per photo">
        Auto-label all photos
      </button>
      {start.error && <p className="hint" role="alert">{start.error.message}</p>}
    </form>
  );
}

function JobRow({ job, canCancel }: { job: Job; canCancel: boolean }) {
  const cancel = useMutation({ mutationFn: () => cancelProjectJob(job.id) });
  const what = job.kind === 'text' && job.prompts?.length ? `${KIND_TEXT[job.kind]} "${job.prompts.join(', ')}"` : KIND_TEXT[job.kind];
  return (
    <li className="row spread" data-testid="job-row" data-state={job.state}>
      <span>
        {what}{' '}
        <span className="muted small" data-testid="job-progress">
          {`${job.state} · ${job.done} of ${job.total}${job.failed ? ` · ${job.failed} failed` : ''}`}
          {STATE_NOTE[job.state] && ` · ${STATE_NOTE[job.state]}`}
        </span>
      </span>
      <progress max={job.total || 1} value={job.done + job.failed} aria-label={`Progress of the ${what} job`} />
      {canCancel && RUNNING.has(job.state) && (
        <button type="button" className="small" disabled={cancel.isPending} onClick={() => cancel.mutate()}>
          Cancel
        </button>
      )}
      {cancel.error && <span className="hint" role="alert">{cancel.error.message}</span>}
    </li>
  );
}
