import { create } from 'zustand';
import type { ProjectRole } from '../../contract/projects';
import type { SyncState } from './projectSync';

/** The shared project the studio has open, if any, and how its sync stands (shown by ProjectPanel). */
interface OpenProjectState {
  open: { id: string; name: string; role: ProjectRole } | null;
  state: SyncState;
  message: string | null;
}

export const useOpenProject = create<OpenProjectState>(() => ({ open: null, state: 'saved', message: null }));
