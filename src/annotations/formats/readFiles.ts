import { IMPORTABLE } from './registry';
import { mergeImported, type ImportedDataset, type InputFile } from './imported';
import { readZip } from './zip';
import { readLearnedModel } from './learnedModelFile';

const IMAGE = /\.(jpe?g|png|webp|gif|bmp)$/i;

export interface ReadFiles {
  readonly dataset: ImportedDataset;
  /** Photos that came with the annotations (in a zip, or picked beside them), not yet open. */
  readonly images: readonly InputFile[];
}

/**
 * What the user picked — annotation files, zips of them, photos — read by every format that
 * recognises some of it (formats/index.ts); zips are opened first. Photos no reader consumed (a
 * VOC mask PNG is consumed by the VOC reader) are returned so the studio can open them.
 */
export async function readDatasetFiles(picked: readonly InputFile[]): Promise<ReadFiles> {
  const files: InputFile[] = [];
  for (const f of picked) {
    if (/\.zip$/i.test(f.name)) files.push(...(await readZip(f.bytes)).map((e) => ({ name: e.name, bytes: e.data })));
    else files.push(f);
  }
  const parts: ImportedDataset[] = [];
  const consumed = new Set<string>();
  for (const format of IMPORTABLE) {
    const read = await format.read!(files.filter((f) => !consumed.has(f.name)));
    if (!read) continue;
    parts.push(read.dataset);
    read.consumed.forEach((name) => consumed.add(name));
  }
  const dataset = mergeImported(parts.map((p) => p.format).join('+') || 'none', parts);
  const problems = parts.length === 0 ? ['no annotation file of a known format (COCO, YOLO, PNG masks, Pascal VOC, LabelMe, CVAT, Maskwright) among the chosen files'] : [...dataset.problems];
  // A zip export carries the learned model as a file of its own, whatever its annotation format.
  const learned = dataset.learnedModel ? undefined : readLearnedModel(files.filter((f) => !consumed.has(f.name)));
  if (learned && 'problem' in learned) problems.push(learned.problem);
  const learnedModel = dataset.learnedModel ?? (learned && 'model' in learned ? learned.model : undefined);
  return { dataset: { ...dataset, problems, ...(learnedModel ? { learnedModel } : {}) }, images: files.filter((f) => IMAGE.test(f.name) && !consumed.has(f.name)) };
}
