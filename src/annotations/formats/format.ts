import type { Dataset } from './dataset';
import type { ImportedDataset, InputFile } from './imported';
import { withLearnedModel } from './learnedModelFile';
import { isProposal } from '../review';

/**
 * One dataset format, one file (Excalidraw's actions): how it is named in the menus, what it writes
 * and how it reads. The Export and Import menus are generated from `FORMATS` (index.ts), so a new
 * format is one new file plus one line there.
 */
export interface FormatOption {
  readonly id: string;
  readonly label: string;
  readonly defaultValue: boolean;
}

export interface ExportFile {
  readonly name: string;
  readonly bytes: Uint8Array;
  readonly mime: string;
  /** What a user should know about this file (what the format could not hold as it is), in words; the zip formats also carry them as NOTES.md. */
  readonly notes?: readonly string[];
}

/**
 * The annotation kinds a format's files can hold. An object of a kind its format cannot hold is left
 * out of the file and named in the export's notes (`writeFormat`): one rule for every format, so a
 * box never turns silently into a rectangular mask in a segmentation dataset.
 */
export interface HeldKinds {
  readonly mask: boolean;
  readonly box: boolean;
  readonly tag: boolean;
}

export interface DatasetFormat {
  readonly id: string;
  /** What its files hold (see HeldKinds). */
  readonly holds: HeldKinds;
  /** Menu text, e.g. "COCO JSON". */
  readonly label: string;
  /** One line on what the file holds, shown beside the entry. */
  readonly summary: string;
  readonly options?: readonly FormatOption[];
  /** Whether the writer packs the photos when given their bytes (the "include images" choice). */
  readonly carriesImages?: boolean;
  /** The photos are the file (one folder per class): they are packed whether or not "include images" is ticked. */
  readonly requiresImages?: boolean;
  /** The format writes and reads the learned model itself (learnedModelFile.ts); otherwise a zip gets it as a file of its own. */
  readonly holdsLearnedModel?: boolean;
  /** A detection format: it holds a mask only as its box, which reads back as a box (named in the export's notes). */
  readonly writesMasksAsBoxes?: boolean;
  /** The files keep an object's review state (a proposal still to review reads back as one); otherwise a proposal reads back accepted, and the export's notes say which. */
  readonly holdsReview?: boolean;
  /** Pure: plain data in, file out (Node can run it). */
  write(dataset: Dataset, options: Readonly<Record<string, boolean>>): Promise<ExportFile>;
  /**
   * The files of this format among those picked (zips already opened), read; undefined when none is
   * of this format. `consumed` names the files it read, so the rest can be opened as images.
   */
  read?(files: readonly InputFile[]): Promise<{ dataset: ImportedDataset; consumed: readonly string[] } | undefined>;
}

const encoder = new TextEncoder();
export const jsonFile = (name: string, value: unknown): ExportFile => ({ name, bytes: encoder.encode(JSON.stringify(value, null, 2)), mime: 'application/json' });

/** A written file and what was left out of it, in words for the user. */
export interface WrittenExport {
  readonly file: ExportFile;
  readonly notes: readonly string[];
}

const KIND_NAMES = { mask: ['mask', 'masks'], box: ['box', 'boxes'], tag: ['image tag', 'image tags'] } as const;

/**
 * The dataset without what the format cannot hold, and a note per kind left out: objects of a kind
 * it has no shape for, and image tags where it has none (a tags-only format keeps only the tags).
 */
export function keepHeldKinds(format: Pick<DatasetFormat, 'label' | 'holds' | 'writesMasksAsBoxes' | 'holdsReview'>, dataset: Dataset): { dataset: Dataset; notes: string[] } {
  const leftOut = { mask: [] as string[], box: [] as string[], tag: [] as string[] };
  const images = dataset.images.map((entry) => {
    const objects = entry.objects.filter((o) => {
      if (format.holds[o.kind]) return true;
      leftOut[o.kind].push(`${entry.image.name}: ${o.object.label}`);
      return false;
    });
    if (format.holds.tag || !entry.tags?.length) return { ...entry, objects };
    for (const t of entry.tags) leftOut.tag.push(`${entry.image.name}: ${t.object.label}`);
    return { ...entry, objects, tags: [] };
  });
  const notes = (['mask', 'box', 'tag'] as const)
    .filter((kind) => leftOut[kind].length > 0)
    .map((kind) => {
      const n = leftOut[kind].length;
      return `${format.label} cannot hold ${KIND_NAMES[kind][1]}: ${n} ${KIND_NAMES[kind][n === 1 ? 0 : 1]} left out (${leftOut[kind].join(', ')})`;
    });
  return { dataset: notes.length ? { ...dataset, images } : dataset, notes: [...notes, ...masksAsBoxesNotes(format, dataset), ...proposalsAcceptedNotes(format, images)] };
}

/** A detection format keeps a mask as its box: the mask comes back a box, so the export says which. */
function masksAsBoxesNotes(format: Pick<DatasetFormat, 'label' | 'holds' | 'writesMasksAsBoxes'>, dataset: Dataset): string[] {
  if (!format.writesMasksAsBoxes || !format.holds.mask) return [];
  const masks = dataset.images.flatMap((entry) => entry.objects.filter((o) => o.kind === 'mask').map((o) => `${entry.image.name}: ${o.object.label}`));
  if (masks.length === 0) return [];
  return [`${format.label} writes masks as their boxes: ${masks.length} ${masks.length === 1 ? 'mask' : 'masks'} written as ${masks.length === 1 ? 'a box' : 'boxes'} (${masks.join(', ')})`];
}

/** The one way a format is written: the objects it cannot hold are left out and named. */
export async function writeFormat(format: DatasetFormat, dataset: Dataset, options: Readonly<Record<string, boolean>>): Promise<WrittenExport> {
  const held = keepHeldKinds(format, dataset);
  const file = await format.write(held.dataset, options);
  if (format.holdsLearnedModel) return { file, notes: held.notes };
  const withModel = await withLearnedModel(file, format.label, dataset.learnedModel);
  return { file: withModel.file, notes: [...held.notes, ...withModel.notes] };
}

/** A format without review states reads a proposal back as an accepted object: the export says which proposals. */
function proposalsAcceptedNotes(format: Pick<DatasetFormat, 'label' | 'holdsReview'>, images: Dataset['images']): string[] {
  if (format.holdsReview) return [];
  const proposals = images.flatMap((entry) => [...entry.objects, ...(entry.tags ?? [])].filter((o) => isProposal(o.object)).map((o) => `${entry.image.name}: ${o.object.label}`));
  if (proposals.length === 0) return [];
  return [`${format.label} cannot hold review states: ${proposals.length} ${proposals.length === 1 ? 'proposal' : 'proposals'} not yet reviewed will read back as accepted (${proposals.join(', ')})`];
}
