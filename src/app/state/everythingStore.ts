import type { EverythingProgress } from '../inference/segmentEverything';
import { createBackgroundRunStore } from './backgroundRunStore';

/** Where a "Segment everything" run stands (outside the text panel, which is remade per image). */
export const useEverything = createBackgroundRunStore<EverythingProgress>();
