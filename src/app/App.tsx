import { useEffect, useState } from 'react';
import { AccountPage } from './account/AccountPage';
import { CreditsPage } from './account/CreditsPage';
import { KeysPage } from './account/KeysPage';
import { Header } from './components/Header';
import { HelpOverlay } from './components/HelpOverlay';
import { ImageStrip } from './components/ImageStrip';
import { ObjectList } from './components/ObjectList';
import { ReviewPanel } from './components/ReviewPanel';
import { ClassPanel } from './components/ClassPanel';
import { BackgroundRuns } from './components/BackgroundRuns';
import { ResultAnnouncer } from './components/ResultAnnouncer';
import { SheetBar, type Sheet } from './components/SheetBar';
import { PromptPanel } from './components/PromptPanel';
import { ProjectPanel } from './components/ProjectPanel';
import { RemoteSettings } from './components/RemoteSettings';
import { StatusBar } from './components/StatusBar';
import { StudioCanvas } from './components/StudioCanvas';
import { Toolbar } from './components/Toolbar';
import { openImageBlobs, openSample } from './openImagesAction';
import { engineSession } from './studioServices';
import { useSessionPersistence } from './useSessionPersistence';
import { useReopenProject } from './projects/useReopenProject';
import './learn/projectLearnedServices';
import { useLearnedClasses } from './learn/learnerServices';
import { handleShortcut } from './shortcuts';
import { useStudio } from './state/studioStore';
import { pageFromHash, useUi } from './state/uiStore';
import { useInferenceMode } from './state/inferenceModeStore';
import { usePreferences } from './state/preferences';
import { SAMPLES } from './images/imageLibrary';

export function App() {
  const page = useUi((s) => s.page);
  const restored = useSessionPersistence();
  useReopenProject(restored);

  useEffect(() => {
    noticeFromCheckoutReturn();
    const onHash = () => useUi.getState().setPage(pageFromHash(location.hash));
    const onKey = (e: KeyboardEvent) => {
      if (handleShortcut(e)) e.preventDefault();
    };
    const onPaste = (e: ClipboardEvent) => {
      const files = Array.from(e.clipboardData?.files ?? []).filter((f) => f.type.startsWith('image/'));
      if (files.length && useUi.getState().page === 'studio') {
        e.preventDefault();
        void openImageBlobs(files);
      }
    };
    window.addEventListener('hashchange', onHash);
    window.addEventListener('keydown', onKey);
    window.addEventListener('paste', onPaste);
    return () => {
      window.removeEventListener('hashchange', onHash);
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('paste', onPaste);
    };
  }, []);

  return (
    <div className="app">
      <Header />
      {/* The account pages are each their own <main>; the studio gets one here. */}
      {page === 'studio' && (
        <main className="app-main" id="main">
          <Studio />
        </main>
      )}
      {page === 'account' && <AccountPage />}
      {page === 'keys' && <KeysPage />}
      {page === 'credits' && <CreditsPage />}
      <HelpOverlay />
      <Notice />
    </div>
  );
}

function Notice() {
  const notice = useUi((s) => s.notice);
  if (!notice) return null;
  return (
    <div className="notice" role="alert">
      {notice}
      <button type="button" className="icon" aria-label="Dismiss" onClick={() => useUi.getState().setNotice(null)}>
        ✕
      </button>
    </div>
  );
}

/** Stripe Checkout sends the buyer back with ?purchase=success|cancelled. */
function noticeFromCheckoutReturn(): void {
  const params = new URLSearchParams(location.search);
  const outcome = params.get('purchase');
  if (!outcome) return;
  useUi
    .getState()
    .setNotice(outcome === 'success' ? 'Payment received. The credits appear in your balance as soon as Stripe confirms it.' : 'Checkout cancelled. Nothing was charged.');
  useUi.getState().setPage('credits');
  history.replaceState(null, '', `${location.pathname}#/credits`);
}

function Studio() {
  const doc = useStudio((s) => s.history.present);
  const mode = useInferenceMode((s) => s.mode);
  const embeddingSource = usePreferences((s) => s.embeddingSource);
  const [dragging, setDragging] = useState(false);
  const [sheet, setSheet] = useState<Sheet>(null);
  const active = doc.activeImageId;

  // Local mode: start the model as soon as the studio opens, embed the image being looked at first
  // (ahead of any photo still waiting), then the session's other photos in the background.
  const imageIds = doc.images.map((image) => image.id).join(',');
  useEffect(() => {
    if (mode !== 'local') return;
    void engineSession.start().catch(() => undefined);
    engineSession.embedInBackground(active, imageIds ? imageIds.split(',') : []);
  }, [mode, active, imageIds]);

  // Once the session learns, the photo on screen gets its descriptors' detector runs ahead of the
  // person's first decision on it, in the background worker (the click worker stays free for clicks).
  const learning = useLearnedClasses((s) => s.classes.length > 0);
  useEffect(() => {
    if (mode === 'local' && active && learning) engineSession.prepareDescriptors(active);
  }, [mode, active, learning]);

  return (
    <div
      className={`studio${dragging ? ' dropping' : ''}`}
      onDragOver={(e) => {
        if (e.dataTransfer.types.includes('Files')) {
          e.preventDefault();
          setDragging(true);
        }
      }}
      onDragLeave={(e) => {
        if (e.currentTarget === e.target) setDragging(false);
      }}
      onDrop={(e) => {
        e.preventDefault();
        setDragging(false);
        void openImageBlobs(Array.from(e.dataTransfer.files));
      }}
    >
      {doc.images.length > 0 && <h1 className="visually-hidden">Studio: {doc.images.find((i) => i.id === active)?.name}</h1>}
      <Toolbar />
      <div className={`workspace${sheet ? ` sheet-open-${sheet}` : ''}`}>
        <ImageStrip />
        <div className="canvas-column">
          {doc.images.length === 0 ? <EmptyState /> : <StudioCanvas />}
        </div>
        <aside className="side-panel" id="selection-sheet" aria-label="Selection and objects">
          {(mode === 'remote' || embeddingSource === 'server') && <RemoteSettings />}
          <ReviewPanel />
          <BackgroundRuns />
          <ProjectPanel />
          <PromptPanel />
          <ClassPanel />
          <ObjectList />
        </aside>
      </div>
      <SheetBar sheet={sheet} onChange={setSheet} />
      <ResultAnnouncer />
      <StatusBar />
    </div>
  );
}

function EmptyState() {
  return (
    <div className="empty-state">
      <h1>Segment anything in your photos</h1>
      <p>Open an image, drop one here or paste it. Then click an object — the mask appears in a blink.</p>
      <div className="empty-samples">
        {SAMPLES.map((s) => (
          <button key={s.file} type="button" className="sample-card" onClick={() => void openSample(s.file)}>
            <img src={`${import.meta.env.BASE_URL}samples/${s.file}`} alt="" />
            <span>{s.title}</span>
          </button>
        ))}
      </div>
    </div>
  );
}
