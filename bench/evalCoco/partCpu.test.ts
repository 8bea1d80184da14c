import { describe, expect, it } from 'vitest';
import type { EverythingEngine } from '../../src/engine/everything/segmentEverything';
import type { ConceptDetector } from '../../src/engine/text/detector';
import { emptyPartCpu, meterParts } from './partCpu';

/** Keeps this thread busy until the process has used `ms` of CPU time (however loaded the machine). */
function spin(ms: number): void {
  const start = process.cpuUsage();
  for (;;) {
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1000 >= ms) return;
  }
}

describe('meterParts', () => {
  it("adds each call's CPU time to its own part and passes answers and names through", async () => {
    const answer = { outputs: { logits: new Float32Array(1), iou: new Float32Array(1), tokens: 1 }, frame: {} } as unknown as Awaited<ReturnType<EverythingEngine['decodeTokens']>>;
    const engine: EverythingEngine = {
      getEmbedding: () => undefined,
      decodeTokens: async () => {
        spin(30);
        return answer;
      },
      embedScratch: async () => {
        spin(60);
        return {} as never;
      },
      forget: () => undefined,
    };
    const detector = { name: 'centernet', vocabulary: ['cat'], inputSize: 512, detect: async () => (spin(20), []), release: async () => undefined } as unknown as ConceptDetector;
    const cpu = emptyPartCpu();
    const metered = meterParts(engine, [detector], cpu);
    expect(await metered.engine.decodeTokens('k', { points: [] })).toBe(answer);
    expect(metered.detectors[0].name).toBe('centernet');
    expect(cpu).toEqual({ detectMs: 0, decodeMs: expect.any(Number), tileEncodeMs: 0 });
    await metered.detectors[0].detect({} as never);
    await metered.engine.embedScratch!({} as never, 'tile');
    expect(cpu.decodeMs).toBeGreaterThanOrEqual(30);
    expect(cpu.detectMs).toBeGreaterThanOrEqual(20);
    expect(cpu.tileEncodeMs).toBeGreaterThanOrEqual(60);
    // Each call counted once, in its own part.
    expect(cpu.decodeMs).toBeLessThan(55);
    expect(cpu.detectMs).toBeLessThan(45);
    expect(cpu.tileEncodeMs).toBeLessThan(85);
  });

  it('decoder runs in progress at once are counted once, over the span from the first start until none is left', async () => {
    let release: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (release = resolve));
    const engine: EverythingEngine = {
      getEmbedding: () => undefined,
      decodeConcurrency: 2,
      decodeTokens: async () => {
        await answered;
        return {} as never;
      },
    };
    const cpu = emptyPartCpu();
    const metered = meterParts(engine, [], cpu);
    expect(metered.engine.decodeConcurrency).toBe(2);
    const both = [metered.engine.decodeTokens('k', { points: [] }), metered.engine.decodeTokens('k', { points: [] })];
    spin(40);
    release();
    await Promise.all(both);
    expect(cpu.decodeMs).toBeGreaterThanOrEqual(40);
    // Metered call by call, the 40 ms both runs spanned would count twice.
    expect(cpu.decodeMs).toBeLessThan(70);
  });
});
