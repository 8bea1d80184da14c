import { create } from 'zustand';

/** Where a prompt is answered: the model in this browser, or the metered API. */
export type InferenceMode = 'local' | 'remote';

const MODE_KEY = 'maskwright.mode';

function loadMode(): InferenceMode {
  return typeof localStorage !== 'undefined' && localStorage.getItem(MODE_KEY) === 'remote' ? 'remote' : 'local';
}

interface InferenceModeState {
  mode: InferenceMode;
  setMode(mode: InferenceMode): void;
}

/** The user's choice survives a reload (localStorage of this origin). */
export const useInferenceMode = create<InferenceModeState>((set) => ({
  mode: loadMode(),
  setMode: (mode) => {
    localStorage.setItem(MODE_KEY, mode);
    set({ mode });
  },
}));
