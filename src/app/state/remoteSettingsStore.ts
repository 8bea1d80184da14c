import { create } from 'zustand';

/** Where the metered API lives and the API key the studio pays with. */
export interface RemoteSettings {
  readonly baseUrl: string;
  readonly apiKey: string;
}

const REMOTE_KEY = 'maskwright.remote';

function loadRemote(): RemoteSettings {
  try {
    const raw = typeof localStorage === 'undefined' ? null : localStorage.getItem(REMOTE_KEY);
    if (raw) {
      const parsed = JSON.parse(raw) as Partial<RemoteSettings>;
      return { baseUrl: parsed.baseUrl ?? '', apiKey: parsed.apiKey ?? '' };
    }
  } catch {
    // A broken entry is as good as none.
  }
  return { baseUrl: '', apiKey: '' };
}

interface RemoteSettingsState {
  remote: RemoteSettings;
  setRemote(remote: RemoteSettings): void;
}

export const useRemoteSettings = create<RemoteSettingsState>((set) => ({
  remote: loadRemote(),
  setRemote: (remote) => {
    // The key stays in this browser only: localStorage of this origin, never sent anywhere but the API.
    localStorage.setItem(REMOTE_KEY, JSON.stringify(remote));
    set({ remote });
  },
}));
