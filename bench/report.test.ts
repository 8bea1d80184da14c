import { describe, expect, it } from 'vitest';
import { markdownTable, ratioOf, stagesFrom } from './report';

describe('bench report', () => {
  it('summarises samples per stage and computes ours/peer on the p50', () => {
    const ours = stagesFrom({ clickToPolygon: [30, 10, 20], encoder: [] });
    const peer = stagesFrom({ clickToMask: [40, 40, 40] });
    expect(ours.encoder).toBeUndefined();
    expect(ours.clickToPolygon).toMatchObject({ n: 3, p50: 20, p90: 30 });
    expect(ratioOf('click', ours.clickToPolygon, peer.clickToMask)).toEqual({ stage: 'click', ours: 20, peer: 40, ratio: 0.5, minRatio: 0.25 });
    expect(ratioOf('click', ours.clickToPolygon, undefined)).toBeUndefined();
  });

  it('prints one row per measured stage, a dash where a run lacks it, and the ratios', () => {
    const md = markdownTable(
      [
        { label: 'Node', backend: 'cpu', stages: stagesFrom({ decoder: [60.4], clickToPolygon: [70] }) },
        { label: 'peer', backend: 'wasm', stages: stagesFrom({ clickToMask: [300] }) },
      ],
      [{ stage: 'click', ours: 70, peer: 300, ratio: 70 / 300, minRatio: 0.2 }],
    );
    expect(md).toContain('| decoder, per click | 60.4 / 60.4 | — |');
    expect(md).toContain('| click → mask, total (peer: no polygons) | — | 300 / 300 |');
    expect(md).toContain('| click | 70.0 | 300 | 0.23× | 0.20× |');
    expect(md).not.toContain('encoder');
  });
});
