import { boxesCsvFormat } from './boxesCsv';
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
import { yoloDetectionFormat } from './yoloDetection';

/** Every dataset format, in menu order. The Export and Import menus are generated from this list. */
// YOLO detection before YOLO segmentation: its reader takes the label files of five numbers a line first.
export const FORMATS: readonly DatasetFormat[] = [cocoFormat, yoloDetectionFormat, yoloFormat, pngMasksFormat, vocFormat, cvatFormat, labelmeFormat, maskwrightFormat, boxesCsvFormat, tagsCsvFormat, classFoldersFormat];

export const formatById = (id: string) => FORMATS.find((f) => f.id === id);
export const IMPORTABLE = FORMATS.filter((f) => f.read);
export { writeFormat } from './format';
export type { DatasetFormat, ExportFile, FormatOption, HeldKinds, WrittenExport } from './format';
