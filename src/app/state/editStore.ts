import { create } from 'zustand';
import type { VertexRef } from '../geometry/vertexEdit';

/** View state of hand editing: what is selected and the brush size. Not undoable, not in the document. */

const BRUSH_KEY = 'maskwright.brushSize';
export const BRUSH_MIN = 1;
export const BRUSH_MAX = 200;

export const clampBrush = (size: number) => Math.round(Math.min(BRUSH_MAX, Math.max(BRUSH_MIN, size)));

interface EditState {
  /** Selected objects of the active image, in the order they were picked. */
  selection: readonly string[];
  selectedVertex: VertexRef | null;
  /** Brush diameter in image pixels. */
  brushSize: number;
  select(ids: readonly string[]): void;
  toggle(id: string): void;
  selectVertex(ref: VertexRef | null): void;
  setBrushSize(size: number): void;
}

function loadBrush(): number {
  const stored = Number(typeof localStorage === 'undefined' ? NaN : localStorage.getItem(BRUSH_KEY));
  return Number.isFinite(stored) && stored > 0 ? clampBrush(stored) : 24;
}

export const useEdit = create<EditState>((set) => ({
  selection: [],
  selectedVertex: null,
  brushSize: loadBrush(),
  select: (selection) => set({ selection, selectedVertex: null }),
  toggle: (id) => set((s) => ({ selection: s.selection.includes(id) ? s.selection.filter((x) => x !== id) : [...s.selection, id], selectedVertex: null })),
  selectVertex: (selectedVertex) => set({ selectedVertex }),
  setBrushSize: (size) => {
    const brushSize = clampBrush(size);
    localStorage.setItem(BRUSH_KEY, String(brushSize));
    set({ brushSize });
  },
}));

/** Brush size steps used by `[` / `]` and the wheel: finer when small. */
export function brushStep(size: number, direction: 1 | -1): number {
  const step = Math.max(1, Math.round(size * 0.15));
  return clampBrush(size + direction * step);
}
