import { create } from 'zustand';
import type { ToolId } from '../tools/registry';

/** Which canvas tool is on. Not undoable, not saved: every visit starts with the positive point. */
interface ToolStoreState {
  tool: ToolId;
  setTool(tool: ToolId): void;
}

export const useTool = create<ToolStoreState>((set) => ({
  tool: 'positive',
  setTool: (tool) => set({ tool }),
}));
