import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { MemberRole } from '../../contract/projects';
import { useAccount } from '../remote/useAccount';
import { browserProjectApi, closeProject, createProjectFromSession, openProjectInStudio, shareProject } from '../projects/projectSession';
import { useOpenProject, useProjectStatusText } from '../projects/projectStore';
import { addPhotoBack, keptPhotosOpen, roleMayAddBack } from '../projects/keptPhotos';
import { addPhotoBackCommand } from '../commands/addPhotoBack';
import { chordLabel } from '../commands/command';
import type { LiveStatusText } from '../projects/liveStatus';
import { useStudio } from '../state/studioStore';
import { AnonymousWorkOffer } from './AnonymousWorkOffer';
import { JobPanel } from './JobPanel';

const STATUS_CLASS: Record<LiveStatusText, string> = { 'Up to date': 'sync-saved', Behind: 'sync-syncing', Offline: 'sync-offline', Conflict: 'sync-conflict', 'Not saved': 'sync-error' };
const PROJECTS_QUERY = ['projects'];
const INVITATIONS_QUERY = ['project-invitations'];

/**
 * Shared projects on the server, for a signed-in person: make one of the session on screen, open
 * one (mine or shared with me), share it, and see whether the edits have reached it.
 */
export function ProjectPanel() {
  const account = useAccount();
  const open = useOpenProject((s) => s.open);
  const message = useOpenProject((s) => s.message);
  const status = useProjectStatusText();
  if (account.data?.via !== 'session' || !account.data.signedIn) return null;
  return (
    <section className="card projects" aria-label="Project">
      <h2 className="section-title">Project</h2>
      <AnonymousWorkOffer projectsQuery={PROJECTS_QUERY} />
      {open ? (
        <>
          <p className="row spread">
            <strong data-testid="project-name">{open.name}</strong>
            <span className="muted small">{open.role}</span>
          </p>
          <p className={`sync-state ${STATUS_CLASS[status]}`} data-testid="sync-state" role="status">
            {status}
          </p>
          {message && <p className="hint">{message}</p>}
          <KeptPhotos />
          <JobPanel canStart={open.role !== 'reviewer'} />
          {open.role === 'owner' && <ShareForm />}
          <button type="button" className="small" onClick={closeProject}>
            Close project
          </button>
        </>
      ) : (
        <>
          <CreateForm />
          <ProjectList />
        </>
      )}
    </section>
  );
}

/** Photos another member removed while they held my unsaved edits: each says so, and its button adds it back. */
function KeptPhotos() {
  const kept = useOpenProject((s) => s.keptOutside);
  const images = useStudio((s) => s.history.present.images);
  const addable = useOpenProject((s) => roleMayAddBack(s.open?.role));
  const open = keptPhotosOpen(kept, images);
  if (!open.length) return null;
  return (
    <ul className="project-list" aria-label="Removed from the project">
      {open.map((photo) => (
        <li key={photo.imageId} className="row spread" data-testid="kept-photo">
          <span className="small">{`${photo.removedBy ?? 'Another member'} removed ${photo.name}; your unsaved changes on it are kept here.`}</span>
          {addable ? (
            <button type="button" className="small" title={`Uploads it to the project again with your changes (${chordLabel(addPhotoBackCommand.keys[0])} on the photo does it too)`} onClick={() => addPhotoBack(photo.imageId)}>
              Add back {photo.name}
            </button>
          ) : (
            <span className="muted small">A reviewer cannot add photos to the project; your changes stay here (Export keeps them).</span>
          )}
        </li>
      ))}
    </ul>
  );
}

function CreateForm() {
  const hasImages = useStudio((s) => s.history.present.images.length > 0);
  const [name, setName] = useState('');
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: () => createProjectFromSession(name.trim()),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: PROJECTS_QUERY }),
  });
  return (
    <form
      className="row"
      onSubmit={(e) => {
        e.preventDefault();
        if (name.trim()) create.mutate();
      }}
    >
      <input aria-label="Project name" placeholder="Project name" value={name} onChange={(e) => setName(e.target.value)} />
      <button type="submit" className="small" disabled={!hasImages || !name.trim() || create.isPending} title={hasImages ? undefined : 'Open a photo first'}>
        Save session as project
      </button>
      {create.error && <p className="hint" role="alert">{create.error.message}</p>}
    </form>
  );
}

/** Projects shared with me that I have not joined: they are listed (and open) once I join. */
function Invitations() {
  const queryClient = useQueryClient();
  const invitations = useQuery({ queryKey: INVITATIONS_QUERY, queryFn: () => browserProjectApi().invitations() });
  const join = useMutation({
    mutationFn: (id: string) => browserProjectApi().join(id),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: INVITATIONS_QUERY });
      void queryClient.invalidateQueries({ queryKey: PROJECTS_QUERY });
    },
  });
  if (!invitations.data?.length) return null;
  return (
    <ul className="project-list">
      {invitations.data.map((i) => (
        <li key={i.projectId} className="row spread" data-testid="invitation-row">
          <span>
            {i.projectName} <span className="muted small">{`invited as ${i.role} by ${i.owner}`}</span>
          </span>
          <button type="button" className="small" disabled={join.isPending} onClick={() => join.mutate(i.projectId)}>
            Join {i.projectName}
          </button>
        </li>
      ))}
      {join.error && <li className="hint" role="alert">{join.error.message}</li>}
    </ul>
  );
}

function ProjectList() {
  const projects = useQuery({ queryKey: PROJECTS_QUERY, queryFn: () => browserProjectApi().list() });
  const opening = useMutation({ mutationFn: (id: string) => openProjectInStudio(id) });
  const hasImages = useStudio((s) => s.history.present.images.length > 0);
  if (!projects.data?.length) return projects.error ? <p className="hint">{projects.error.message}</p> : <Invitations />;
  return (
    <>
    <Invitations />
    <ul className="project-list">
      {projects.data.map((p) => (
        <li key={p.id} className="row spread" data-testid="project-row">
          <span>
            {p.name} <span className="muted small">{p.role === 'owner' ? `${p.imageCount} photos` : `${p.role} · ${p.owner}`}</span>
          </span>
          <button
            type="button"
            className="small"
            disabled={opening.isPending}
            onClick={() => (!hasImages || window.confirm(`Open ${p.name}? It replaces the photos on screen (they stay saved in this browser's history only until you open others).`)) && opening.mutate(p.id)}
          >
            Open {p.name}
          </button>
        </li>
      ))}
      {opening.error && <li className="hint" role="alert">{opening.error.message}</li>}
    </ul>
    </>
  );
}

function ShareForm() {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<MemberRole>('annotator');
  const share = useMutation({ mutationFn: () => shareProject(email.trim(), role) });
  return (
    <form
      className="row"
      onSubmit={(e) => {
        e.preventDefault();
        if (email.trim()) share.mutate();
      }}
    >
      <input aria-label="Share with (email)" placeholder="colleague@example.com" value={email} onChange={(e) => setEmail(e.target.value)} />
      <select aria-label="Role" value={role} onChange={(e) => setRole(e.target.value as MemberRole)}>
        <option value="annotator">annotator</option>
        <option value="reviewer">reviewer</option>
      </select>
      <button type="submit" className="small" disabled={!email.trim() || share.isPending}>
        Share
      </button>
      {share.isSuccess && <p className="hint" role="status">Shared with {email.trim()} as {role}. They see it once they join (their Project panel lists the invitation).</p>}
      {share.error && <p className="hint" role="alert">{share.error.message}</p>}
    </form>
  );
}
