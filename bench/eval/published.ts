/** Published figures from ../shared/eval/PROTOCOL.md, set beside ours (same click protocol). */
import type { DatasetName } from './datasets';

export interface PublishedRow {
  readonly model: string;
  readonly source: string;
  readonly noc85?: number;
  readonly noc90?: number;
}

export const PUBLISHED: Record<DatasetName, PublishedRow[]> = {
  grabcut: [
    { model: 'SAM ViT-H (632 M)', noc90: 1.88, source: 'FocSAM paper (arXiv 2405.18706), Table 1' },
    { model: 'SimpleClick ViT-H', noc90: 1.5, source: 'FocSAM paper (arXiv 2405.18706), Table 1' },
    { model: 'RITM HRNet-32', noc85: 1.46, noc90: 1.56, source: 'RITM project README' },
  ],
  davis: [
    { model: 'SAM ViT-H (632 M)', noc90: 5.19, source: 'FocSAM paper (arXiv 2405.18706), Table 1' },
    { model: 'SimpleClick ViT-H', noc90: 4.78, source: 'FocSAM paper (arXiv 2405.18706), Table 1' },
    { model: 'RITM HRNet-32', noc85: 4.11, noc90: 5.34, source: 'RITM project README' },
  ],
  // Published on the full COCO-MVal (800 objects); ours is a 240-object subset (3 per class), so
  // only a rough point of comparison. No SAM or SimpleClick NoC on COCO-MVal was found.
  'coco-mval': [
    { model: 'RITM HRNet-32 IT-M', noc90: 2.97, source: 'RITM project README (COCO+LVIS)' },
    { model: 'FocalClick SegFormer-B3-S2', noc85: 2.32, noc90: 3.12, source: 'ClickSEG (FocalClick) README, COCO+LVIS' },
    { model: 'FocalClick HRNet-32-S2', noc85: 2.62, noc90: 3.65, source: 'ClickSEG (FocalClick) README, COCO+LVIS' },
    { model: 'CDNet ResNet-34', noc85: 2.51, noc90: 3.88, source: 'ClickSEG (FocalClick) README, COCO+LVIS' },
  ],
};

/** Box-prompt references: another dataset (COCO val2017), so only a rough point of comparison. */
export const PUBLISHED_BOX = [
  { model: 'MobileSAM, COCO val2017 GT boxes', miou: 72.8, source: 'NanoSAM project README' },
  { model: 'SAM, COCO', miou: 78.4, source: 'EfficientSAM paper, Table 4' },
  { model: 'MobileSAM, COCO', miou: 74.2, source: 'EfficientSAM paper, Table 4' },
];
