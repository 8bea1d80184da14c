/** Turns bench samples into the JSON document and the markdown table `npm run bench` writes. */
import { summarize, type Summary } from './browser/stats';

export type StageName =
  | 'preprocess'
  | 'encoder'
  | 'imageToEmbedding'
  | 'decoder'
  | 'masks'
  | 'maskToPolygon'
  | 'clickToPolygon'
  | 'clickToMask'
  | 'imageToEmbeddingCpu'
  | 'clickCpu';

export const STAGE_LABELS: Record<StageName, string> = {
  preprocess: 'preprocessing',
  encoder: 'encoder',
  imageToEmbedding: 'image → embedding, total',
  decoder: 'decoder, per click',
  masks: 'logits → masks (upsampling, ranking)',
  maskToPolygon: 'mask → polygons',
  clickToPolygon: 'click → polygons, total',
  clickToMask: 'click → mask, total (peer: no polygons)',
  imageToEmbeddingCpu: 'image → embedding, CPU time',
  clickCpu: 'per click, CPU time',
};

export interface RunReport {
  /** Column heading, e.g. "Chromium, ours". */
  label: string;
  backend: string;
  stages: Partial<Record<StageName, Summary>>;
  notes?: string[];
}

export interface Ratio {
  stage: string;
  ours: number;
  peer: number;
  /** ours / peer on p50: below 1 means we are faster. */
  ratio: number;
  /** ours / peer on the fastest sample: less sensitive to other work on a shared machine. */
  minRatio: number;
}

export function stagesFrom(samples: Partial<Record<StageName, number[]>>): Partial<Record<StageName, Summary>> {
  const out: Partial<Record<StageName, Summary>> = {};
  for (const [stage, values] of Object.entries(samples) as [StageName, number[] | undefined][]) {
    if (values && values.length > 0) out[stage] = summarize(values);
  }
  return out;
}

export function ratioOf(stage: string, ours: Summary | undefined, peer: Summary | undefined): Ratio | undefined {
  if (!ours || !peer || !(peer.p50 > 0)) return undefined;
  return { stage, ours: ours.p50, peer: peer.p50, ratio: ours.p50 / peer.p50, minRatio: ours.min / peer.min };
}

const fmt = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));

export function markdownTable(runs: readonly RunReport[], ratios: readonly Ratio[]): string {
  const stages = (Object.keys(STAGE_LABELS) as StageName[]).filter((s) => runs.some((r) => r.stages[s]));
  const header = `| stage (ms, p50 / p90) | ${runs.map((r) => r.label).join(' | ')} |`;
  const rule = `|---|${runs.map(() => '---:').join('|')}|`;
  const rows = stages.map((stage) => {
    const cells = runs.map((r) => {
      const s = r.stages[stage];
      return s ? `${fmt(s.p50)} / ${fmt(s.p90)}` : '—';
    });
    return `| ${STAGE_LABELS[stage]} | ${cells.join(' | ')} |`;
  });
  const backends = `| backend | ${runs.map((r) => r.backend).join(' | ')} |`;
  const lines = [header, rule, backends, ...rows];
  if (ratios.length > 0) {
    lines.push('', '| ours / peer | ours p50 | peer p50 | ratio (p50) | ratio (fastest run) |', '|---|---:|---:|---:|---:|');
    for (const r of ratios) lines.push(`| ${r.stage} | ${fmt(r.ours)} | ${fmt(r.peer)} | ${r.ratio.toFixed(2)}× | ${r.minRatio.toFixed(2)}× |`);
  }
  return lines.join('\n');
}
