/**
 * A project written in one of the annotation room's dataset formats: the stored objects are read
 * with the wire mapping (src/annotations/wire.ts) and written by the format registry's own writer,
 * the same code the studio exports with, so a server export equals the studio's.
 */
import { sessionDataset } from '../../../annotations/formats/dataset';
import { formatById, writeFormat, type DatasetFormat } from '../../../annotations/formats/registry';
import { fileNameOf } from '../../../annotations/formats/imported';
import { CONTROL_CHARACTERS } from '../../../annotations/names';
import { fromWireDataset, type WireDataset } from '../../../annotations/wire';
import type { ExportFormat } from '../../../contract/projects';
import type { LearnedClassesState } from '../../../engine/learn/learnedClasses';

export interface ProjectData {
  readonly project: { readonly name: string; readonly classes: WireDataset['classes'] };
  readonly images: WireDataset['images'];
  /** The project's learned model: written beside the annotations where the format has a place for it. */
  readonly learnedModel?: LearnedClassesState;
}

export interface ProjectExportFile {
  contentType: string;
  fileName: string;
  body: Uint8Array;
}

/** The registry's writer of an export format the contract names (a test holds the two lists equal). */
export function exportFormat(id: ExportFormat): DatasetFormat {
  const format = formatById(id);
  if (!format) throw new Error(`export format ${id} is not in the format registry`);
  return format;
}

const SESSION_FILE = 'maskwright-session';
const defaultOptions = (format: DatasetFormat) => Object.fromEntries((format.options ?? []).map((o) => [o.id, o.defaultValue]));

/** Hidden objects are exported, as with the studio's "Include hidden objects" ticked; each format's options at their defaults. */
export async function exportProject(data: ProjectData, id: ExportFormat): Promise<ProjectExportFile> {
  const format = exportFormat(id);
  const safe = withSafeNames(data);
  // What the format cannot hold is left out (writeFormat); the studio shows the notes, a download has no place for them.
  const dataset = sessionDataset(fromWireDataset({ classes: safe.project.classes, images: safe.images }), { includeHidden: true });
  const { file } = await writeFormat(format, data.learnedModel ? { ...dataset, learnedModel: data.learnedModel } : dataset, defaultOptions(format));
  const base = data.project.name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'project';
  // The writers name their file after the studio's session (`maskwright-session.coco.json`); here it is the project's.
  const fileName = file.name.startsWith(SESSION_FILE) ? `${base}${file.name.slice(SESSION_FILE.length)}` : `${base}-${file.name}`;
  return { contentType: file.mime, fileName, body: file.bytes };
}

const dropControls = (text: string) => text.replace(CONTROL_CHARACTERS, '');

/**
 * Names as every format may write them, whatever was stored before names were checked at upload:
 * image names are a bare file name (no folder, so no entry of the dataset points outside it) and
 * no name carries a control character (XML stays well-formed, zip entry names whole).
 */
export function withSafeNames(data: ProjectData): ProjectData {
  return {
    project: { ...data.project, classes: data.project.classes.map((c) => ({ ...c, name: dropControls(c.name) || `class ${c.id}` })) },
    images: data.images.map(({ image, objects }) => ({
      image: { ...image, name: fileNameOf(image.name) },
      objects: objects.map((o) => (o.label === undefined ? o : { ...o, label: dropControls(o.label) })),
    })),
  };
}
