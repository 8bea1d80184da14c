import { create } from 'zustand';
import { hashForPage, pageFromHash, type Page } from './routes';
export { pageFromHash, type Page } from './routes';

/**
 * The app shell: which page is shown, the help dialog, the one-line notice. The studio's other view
 * state has a store per concern: toolStore, inferenceModeStore, remoteSettingsStore, cameraStore,
 * detailStore, hoverPreviewStore.
 */
interface UiState {
  helpOpen: boolean;
  page: Page;
  notice: string | null;
  setHelpOpen(open: boolean): void;
  setPage(page: Page): void;
  setNotice(notice: string | null): void;
}

export const useUi = create<UiState>((set) => ({
  helpOpen: false,
  page: pageFromHash(globalThis.location?.hash ?? ''),
  notice: null,
  setHelpOpen: (helpOpen) => set({ helpOpen }),
  setPage: (page) => {
    const hash = hashForPage(page);
    if (location.hash !== hash) history.replaceState(null, '', hash);
    set({ page });
  },
  setNotice: (notice) => set({ notice }),
}));
