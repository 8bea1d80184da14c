import type { EverythingProgress } from './segmentEverything';
import { createBackgroundRunStore } from '../state/backgroundRunStore';

/** Where a "Segment everything" run stands (outside the text panel, which is remade per image). */
export const useEverything = createBackgroundRunStore<EverythingProgress>();
