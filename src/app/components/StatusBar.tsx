import { useEffect, useState } from 'react';
import { formatBytes, useEngineStatus } from '../state/engineStatus';
import { describeVariants } from '../inference/modelVariants';
import { useInferenceMode } from '../state/inferenceModeStore';
import { useStudio } from '../state/studioStore';
import { engineSession } from '../studioServices';
import { usePreferences } from '../state/preferences';
import { SERVER_START_LABEL } from '../inference/serverEmbedding';
import { useOpenProject, useProjectStatusText } from '../projects/projectStore';

const BACKEND_NAMES: Record<string, string> = {
  webgpu: 'WebGPU',
  'wasm-multithreaded': 'WASM multithreaded',
  'wasm-single-threaded': 'WASM single-threaded',
};

export function ModelProgress() {
  const { phase, progress } = useEngineStatus();
  if (phase === 'starting') return <div className="model-progress">Model downloaded · starting the inference backend…</div>;
  if (phase !== 'downloading') return null;
  const parts = Object.values(progress);
  const loaded = parts.reduce((n, p) => n + (p?.loadedBytes ?? 0), 0);
  const total = parts.reduce((n, p) => n + (p?.totalBytes ?? 0), 0);
  return (
    <div className="model-progress" role="group" aria-label="Model download">
      <span>Downloading the model{total ? ` · ${formatBytes(loaded)} of ${formatBytes(total)}` : '…'}</span>
      <progress max={total || 1} value={total ? loaded : undefined} aria-label="Model download progress" />
      {(['encoder', 'decoder'] as const).map((m) => {
        const p = progress[m];
        return p ? (
          <span key={m} className="muted small">
            {m} {formatBytes(p.loadedBytes)} / {formatBytes(p.totalBytes)}
          </span>
        ) : null;
      })}
    </div>
  );
}

export function StatusBar() {
  const engine = useEngineStatus();
  const mode = useInferenceMode((s) => s.mode);
  const doc = useStudio((s) => s.history.present);
  const active = doc.activeImageId;
  // An image analysed earlier in the session stays ready when the user comes back to it.
  const embeddingHere = engine.embedding?.imageId === active ? engine.embedding.state : active && engineSession.isEmbedded(active) ? 'ready' : null;
  const details = usePreferences((s) => s.statusDetails);
  const serverStart = usePreferences((s) => s.embeddingSource === 'server');
  const setPreferences = usePreferences((s) => s.set);
  // Asked of the engine itself when the details are open and what it may hold changed.
  const [held, setHeld] = useState<Awaited<ReturnType<typeof engineSession.cachedEmbeddings>> | null>(null);
  useEffect(() => {
    if (!details || engine.phase !== 'ready') return setHeld(null);
    let current = true;
    void engineSession.cachedEmbeddings().then((cached) => current && setHeld(cached), () => current && setHeld(null));
    return () => void (current = false);
  }, [details, engine.phase, engine.embeddings, engine.lastMirrorPass, engine.embedding]);
  const heldHere = held?.find((c) => c.imageKey === active)?.views;
  return (
    <footer className="status-bar" data-testid="status-bar" aria-label="Status">
      {mode === 'remote' ? (
        <span>Remote inference · the Maskwright API · 1 credit per request</span>
      ) : (
        <>
          <span data-testid="engine-phase">
            {engine.phase === 'off' && 'Local model not loaded yet'}
            {engine.phase === 'downloading' && 'Loading the model…'}
            {engine.phase === 'starting' && 'Starting the model…'}
            {engine.phase === 'ready' &&
              (embeddingHere === 'running'
                ? 'Analysing the image…'
                : embeddingHere === 'ready'
                  ? 'Ready — hover to preview, click to select'
                  : active && engineSession.isWaitingToEmbed(active)
                    ? 'Analysing this photo next…'
                    : 'Model ready')}
            {engine.phase === 'error' && <span className="error">Model failed: {engine.error}</span>}
          </span>
          {serverStart && (
            <span data-testid="server-start">
              {SERVER_START_LABEL}
              {engine.serverEmbeddingsUsed > 0 && ` · ${engine.serverEmbeddingsUsed} ${engine.serverEmbeddingsUsed === 1 ? 'photo' : 'photos'} analysed by the server`}
            </span>
          )}
          {engine.backend && (
            <span title={engine.backend.detail} data-testid="backend">
              Backend: <strong>{BACKEND_NAMES[engine.backend.name] ?? engine.backend.name}</strong>
              {engine.backend.threads > 1 ? ` · ${engine.backend.threads} threads` : ''}
              {engine.models ? <span data-testid="model-variants"> · {describeVariants(engine.models)}</span> : null}
            </span>
          )}
          {(engine.lastEncoder || engine.lastDecoder) && (
            <button type="button" className="link-button details-toggle" aria-expanded={details} onClick={() => setPreferences({ statusDetails: !details })}>
              {details ? 'Hide details' : 'Details'}
            </button>
          )}
          {details && engine.lastEncoder && (
            <span>
              Encoder {engine.lastEncoder.cacheHit ? 'cache hit' : `${Math.round(engine.lastEncoder.encoderMs)} ms`}
              {engine.storedEmbeddingsUsed > 0 && <span data-testid="stored-embeddings"> · {engine.storedEmbeddingsUsed} from storage</span>}
            </span>
          )}
          {details && engine.lastDecoder && <span>Decoder {Math.round(engine.lastDecoder.decoderMs)} ms</span>}
          {details && engine.lastMirrorPass && <span data-testid="mirror-pass-timing">Mirror pass {Math.round(engine.lastMirrorPass.decoderMs)} ms</span>}
          {details && engine.embeddings > 0 && (
            <span>
              Cache hits {engine.cacheHits}/{engine.embeddings}
            </span>
          )}
          {details && held && (
            <span data-testid="engine-cache">
              Engine holds {held.length} {held.length === 1 ? 'photo' : 'photos'}
              {heldHere && ` · this one${heldHere.includes('mirror') ? ' with its mirror image' : ''}`}
            </span>
          )}
          <ModelProgress />
        </>
      )}
      <ProjectStatus />
    </footer>
  );
}

/** The open project's standing against the server, beside the engine's (the project panel says why). */
function ProjectStatus() {
  const name = useOpenProject((s) => s.open?.name);
  const status = useProjectStatusText();
  if (!name) return null;
  return <span data-testid="project-status">{`Project ${name}: ${status}`}</span>;
}
