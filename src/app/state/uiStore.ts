import { create } from 'zustand';
import type { PolygonWithHoles } from '../../engine/types';
import type { Camera } from '../geometry/camera';
import type { ToolId } from '../tools/types';

export type InferenceMode = 'local' | 'remote';
import { hashForPage, pageFromHash, type Page } from './routes';
export { pageFromHash, type Page } from './routes';

const REMOTE_KEY = 'maskwright.remote';
const MODE_KEY = 'maskwright.mode';

export interface RemoteSettings {
  readonly baseUrl: string;
  readonly apiKey: string;
}

function loadRemote(): RemoteSettings {
  try {
    const raw = localStorage.getItem(REMOTE_KEY);
    if (raw) {
      const parsed = JSON.parse(raw) as Partial<RemoteSettings>;
      return { baseUrl: parsed.baseUrl ?? '', apiKey: parsed.apiKey ?? '' };
    }
  } catch {
    // A broken entry is as good as none.
  }
  return { baseUrl: '', apiKey: '' };
}

function loadMode(): InferenceMode {
  return localStorage.getItem(MODE_KEY) === 'remote' ? 'remote' : 'local';
}


/** View state: not part of the document, not undoable. */
interface UiState {
  tool: ToolId;
  mode: InferenceMode;
  remote: RemoteSettings;
  camera: Camera | null;
  /** Detail slider: Douglas-Peucker tolerance in image pixels. */
  tolerance: number;
  hoverPreview: { imageId: string; polygons: readonly PolygonWithHoles[] } | null;
  helpOpen: boolean;
  page: Page;
  notice: string | null;
  setTool(tool: ToolId): void;
  setMode(mode: InferenceMode): void;
  setRemote(remote: RemoteSettings): void;
  setCamera(camera: Camera | null): void;
  setTolerance(tolerance: number): void;
  setHoverPreview(preview: UiState['hoverPreview']): void;
  setHelpOpen(open: boolean): void;
  setPage(page: Page): void;
  setNotice(notice: string | null): void;
}

export const useUi = create<UiState>((set) => ({
  tool: 'positive',
  mode: loadMode(),
  remote: loadRemote(),
  camera: null,
  tolerance: 0.7,
  hoverPreview: null,
  helpOpen: false,
  page: pageFromHash(location.hash),
  notice: null,
  setTool: (tool) => set({ tool, hoverPreview: null }),
  setMode: (mode) => {
    localStorage.setItem(MODE_KEY, mode);
    set({ mode, hoverPreview: null });
  },
  setRemote: (remote) => {
    // The key stays in this browser only: localStorage of this origin, never sent anywhere but the API.
    localStorage.setItem(REMOTE_KEY, JSON.stringify(remote));
    set({ remote });
  },
  setCamera: (camera) => set({ camera }),
  setTolerance: (tolerance) => set({ tolerance }),
  setHoverPreview: (hoverPreview) => set({ hoverPreview }),
  setHelpOpen: (helpOpen) => set({ helpOpen }),
  setPage: (page) => {
    const hash = hashForPage(page);
    if (location.hash !== hash) history.replaceState(null, '', hash);
    set({ page });
  },
  setNotice: (notice) => set({ notice }),
}));
