/**
 * The learned model travels with the dataset (issue 37 item 6): the learned classes' JSON
 * (LearnedClasses.toJSON: vectors and weights, never photos) as `learned-model.json` in every zip
 * export, as the `learnedModel` field of the Maskwright dataset JSON, and read back from either on
 * import. A single-file format that has no place for it (COCO JSON, CVAT XML, a CSV) says so in the
 * export's notes.
 */
import { LEARNED_CLASSES_VERSION, type LearnedClassesState } from '../../engine/learn/learnedClasses';
import type { ExportFile } from './format';
import { fileNameOf, jsonOf, type InputFile } from './imported';
import { readZip, textEntry, writeZip } from './zip';

export const LEARNED_MODEL_FILE = 'learned-model.json';

const ZIP_MIME = 'application/zip';

/**
 * Whether `value` has the shape of a learned model this engine reads. Only the shape: the studio or
 * server that restores it checks the tables' sizes (contract/learned.ts).
 */
export function isLearnedModel(value: unknown): value is LearnedClassesState {
  if (!value || typeof value !== 'object') return false;
  const v = value as Partial<LearnedClassesState>;
  return v.version === LEARNED_CLASSES_VERSION && Array.isArray(v.classes) && Array.isArray(v.weights) && Array.isArray(v.examples) && Array.isArray(v.mean);
}

/** The written file with the model in it: a zip gets `learned-model.json`; other files are as written, with a note. */
export async function withLearnedModel(file: ExportFile, formatLabel: string, model: LearnedClassesState | undefined): Promise<{ file: ExportFile; notes: string[] }> {
  if (!model) return { file, notes: [] };
  if (file.mime !== ZIP_MIME) return { file, notes: [`${formatLabel} has no place for the learned model: export a zip format or the Maskwright dataset JSON to keep it`] };
  // Entries are stored, not compressed (zip.ts): opening and writing the zip again only copies them.
  const entries = await readZip(file.bytes);
  return { file: { ...file, bytes: writeZip([...entries.filter((e) => fileNameOf(e.name) !== LEARNED_MODEL_FILE), textEntry(LEARNED_MODEL_FILE, JSON.stringify(model))]) }, notes: [] };
}

/** The learned model among the files picked (a zip already opened), and which file it came from. */
export function readLearnedModel(files: readonly InputFile[]): { model: LearnedClassesState; file: string } | { problem: string; file: string } | undefined {
  const file = files.find((f) => fileNameOf(f.name) === LEARNED_MODEL_FILE);
  if (!file) return undefined;
  const json = jsonOf(file);
  if (isLearnedModel(json)) return { model: json, file: file.name };
  return { problem: `${file.name} is not a learned model this studio reads (version ${LEARNED_CLASSES_VERSION}): left out`, file: file.name };
}
