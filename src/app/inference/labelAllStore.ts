import type { LabelAllProgress } from './labelAll';
import { createBackgroundRunStore } from '../state/backgroundRunStore';

/** Where a "Label all" run stands (outside the text panel, which is remade per image). */
export const useLabelAll = createBackgroundRunStore<LabelAllProgress>();
