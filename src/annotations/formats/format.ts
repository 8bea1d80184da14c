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
  /** What a user should know about this file (what the format could not hold as it is), in words; the zip formats also carry them as NOTES.md. */
  readonly notes?: readonly string[];
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
