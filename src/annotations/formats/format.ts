import type { Dataset } from './dataset';
import type { ImportedDataset, InputFile } from './imported';

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
}

export interface DatasetFormat {
  readonly id: string;
  /** Menu text, e.g. "COCO JSON". */
  readonly label: string;
  /** One line on what the file holds, shown beside the entry. */
  readonly summary: string;
  readonly options?: readonly FormatOption[];
  /** Whether the writer packs the photos when given their bytes (the "include images" choice). */
  readonly carriesImages?: boolean;
  /** The photos are the file (one folder per class): they are packed whether or not "include images" is ticked. */
  readonly requiresImages?: boolean;
  /**
   * What it does with image tags (annotations of kind `tag`): `beside-shapes` writes them with the
   * objects, `only` writes nothing but them; absent: it cannot hold them (leftOut.ts says so).
   */
  readonly imageTags?: 'beside-shapes' | 'only';
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
