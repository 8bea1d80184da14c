import { create } from 'zustand';

/** Personal settings of this browser that are not part of the document (kept in localStorage). */
const KEY = 'maskwright.preferences';

import type { BoxDrawing } from '../tools/toolDefinition';
export type { BoxDrawing } from '../tools/toolDefinition';
/**
 * Where Local inference gets a photo's embedding: this device's encoder (free, offline), or the
 * server's ("Server start": 1 credit per photo, then every click decodes here).
 */
export type EmbeddingSource = 'device' | 'server';

interface Preferences {
  /** How the Box tool draws: from the center (the API's box) or corner to corner (CVAT, Label Studio). */
  boxDrawing: BoxDrawing;
  /** The status bar's timings and cache counters, for the curious. */
  statusDetails: boolean;
  embeddingSource: EmbeddingSource;
}

function load(): Preferences {
  const defaults: Preferences = { boxDrawing: 'center', statusDetails: false, embeddingSource: 'device' };
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? '{}') as Partial<Preferences>;
    return {
      boxDrawing: saved.boxDrawing === 'corners' ? 'corners' : 'center',
      statusDetails: saved.statusDetails === true,
      embeddingSource: saved.embeddingSource === 'server' ? 'server' : 'device',
    };
  } catch {
    return defaults;
  }
}

export const usePreferences = create<Preferences & { set(change: Partial<Preferences>): void }>((set, get) => ({
  ...load(),
  set: (change) => {
    set(change);
    const { boxDrawing, statusDetails, embeddingSource } = get();
    localStorage.setItem(KEY, JSON.stringify({ boxDrawing, statusDetails, embeddingSource }));
  },
}));
