import type { LabelAllProgress } from '../inference/labelAll';
import { createBackgroundRunStore } from './backgroundRunStore';

/** Where a "Label all" run stands (outside the text panel, which is remade per image). */
export const useLabelAll = createBackgroundRunStore<LabelAllProgress>();
