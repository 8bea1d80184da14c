import { classFoldersFormat } from './classFolders';
import { cocoFormat } from './coco';
import { cvatFormat } from './cvat';
import type { DatasetFormat } from './format';
import { labelmeFormat } from './labelme';
import { maskwrightFormat } from './maskwright';
import { pngMasksFormat } from './pngMasks';
import { tagsCsvFormat } from './tagsCsv';
import { vocFormat } from './voc';
import { yoloFormat } from './yolo';

/** Every dataset format, in menu order. The Export and Import menus are generated from this list. */
export const FORMATS: readonly DatasetFormat[] = [cocoFormat, yoloFormat, pngMasksFormat, vocFormat, cvatFormat, labelmeFormat, maskwrightFormat, tagsCsvFormat, classFoldersFormat];

export const formatById = (id: string) => FORMATS.find((f) => f.id === id);
export const IMPORTABLE = FORMATS.filter((f) => f.read);
export type { DatasetFormat, ExportFile, FormatOption } from './format';
