import { create } from 'zustand';

/** Personal settings of this browser that are not part of the document (kept in localStorage). */
const KEY = 'maskwright.preferences';

export type BoxDrawing = 'center' | 'corners';

interface Preferences {
  /** How the Box tool draws: from the center (the API's box) or corner to corner (CVAT, Label Studio). */
  boxDrawing: BoxDrawing;
  /** The status bar's timings and cache counters, for the curious. */
  statusDetails: boolean;
}

function load(): Preferences {
  const defaults: Preferences = { boxDrawing: 'center', statusDetails: false };
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? '{}') as Partial<Preferences>;
    return { boxDrawing: saved.boxDrawing === 'corners' ? 'corners' : 'center', statusDetails: saved.statusDetails === true };
  } catch {
    return defaults;
  }
}

export const usePreferences = create<Preferences & { set(change: Partial<Preferences>): void }>((set, get) => ({
  ...load(),
  set: (change) => {
    set(change);
    const { boxDrawing, statusDetails } = get();
    localStorage.setItem(KEY, JSON.stringify({ boxDrawing, statusDetails }));
  },
}));
