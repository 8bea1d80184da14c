import { readFileSync } from 'node:fs';
import onnxProto from 'onnx-proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeRuntime } from '../src/engine/adapters/ortNode';
import { decodeImage } from '../src/engine/adapters/nodeImage';
import { SegmentationEngine } from '../src/engine/engine';
import { maskIoU } from '../src/engine/polygons';
import type { RgbaImage, VisualPrompt } from '../src/engine/types';
import { IMAGE_ONLY_PROJECTIONS, precomputedName, splitDecoder } from './onnxDecoderSplit.mjs';
import { IMAGE_SIDE_PROJECTIONS, quantizeModel } from './onnxQuantize.mjs';
import { sharedPath } from '../test/support/sharedData';

const { onnx } = onnxProto;
const models = 'public/models';
const decoderBytes = readFileSync(`${models}/sam-decoder.onnx`);
const split = splitDecoder(decoderBytes);
const graphOf = (bytes: Uint8Array) => onnx.ModelProto.decode(bytes).graph!;

describe('splitDecoder: the graphs', () => {
  it('gives a precompute model that reads only the image embedding and returns the three projections', () => {
    const graph = graphOf(split.precompute);
    expect(graph.input!.map((i) => i.name)).toEqual(['image_embeddings']);
    expect(graph.output!.map((o) => o.name)).toEqual(IMAGE_ONLY_PROJECTIONS.map(precomputedName));
    expect(split.precomputedNames).toEqual(IMAGE_ONLY_PROJECTIONS.map(precomputedName));
  });

  it('gives a per-click model that takes them in place of its layer-0 key projections, outputs unchanged', () => {
    const original = graphOf(decoderBytes);
    const graph = graphOf(split.perClick);
    expect(graph.input!.map((i) => i.name)).toEqual([...original.input!.map((i) => i.name), ...split.precomputedNames]);
    expect(graph.output!.map((o) => o.name)).toEqual(original.output!.map((o) => o.name));
    const names = new Set(graph.node!.map((n) => n.name));
    for (const projection of IMAGE_ONLY_PROJECTIONS) expect(names.has(projection)).toBe(false);
    // The other seven image-side projections are still there (and still quantizable).
    expect(quantizeModel(split.perClick, { matmul: IMAGE_SIDE_PROJECTIONS }).quantized).toHaveLength(7);
  });

  it('fails loudly on a decoder graph without the parts it relies on', () => {
    const model = onnx.ModelProto.create({
      irVersion: 8,
      graph: onnx.GraphProto.create({ name: 'other', node: [onnx.NodeProto.create({ name: 'x', opType: 'Identity', input: ['a'], output: ['b'] })] }),
    });
    expect(() => splitDecoder(onnx.ModelProto.encode(model).finish())).toThrow(/decoder graph changed/);
  });
});

describe('splitDecoder: the same masks as the single decoder on a real photo', () => {
  const runtime = createNodeRuntime({ threads: 1 });
  const encoder = `${models}/sam-encoder.onnx`;
  let image: RgbaImage;
  let engines: Record<'single' | 'split' | 'singleInt8' | 'splitInt8', SegmentationEngine>;

  beforeAll(async () => {
    image = await decodeImage(readFileSync(sharedPath('samples/coffee.png')));
    const clickInt8 = quantizeModel(split.perClick, { matmul: IMAGE_SIDE_PROJECTIONS, fastGelu: true }).bytes;
    engines = {
      single: await SegmentationEngine.create(runtime, { encoder, decoder: decoderBytes }),
      split: await SegmentationEngine.create(runtime, { encoder, decoder: split.perClick, decoderPrecompute: split.precompute }),
      singleInt8: await SegmentationEngine.create(runtime, { encoder, decoder: `${models}/sam-decoder-int8.onnx` }),
      splitInt8: await SegmentationEngine.create(runtime, { encoder, decoder: clickInt8, decoderPrecompute: split.precompute }),
    };
    await engines.single.embed(image, 'coffee');
    const { embedding } = engines.single.getEmbedding('coffee')!;
    for (const engine of [engines.split, engines.singleInt8, engines.splitInt8]) engine.adoptEmbedding(image, 'coffee', embedding);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(Object.values(engines).map((engine) => engine.release()));
  });

  /** A first click, then a second one with the first answer fed back as the mask prompt. */
  async function session(engine: SegmentationEngine) {
    const first: VisualPrompt = { points: [{ x: 290, y: 140 }] };
    const a = (await engine.predict('coffee', first, { multimask: false, mirrorAverage: false })).candidates[0];
    const second: VisualPrompt = { points: [{ x: 290, y: 140 }, { x: 370, y: 280 }], maskInput: a.lowResLogits };
    const b = (await engine.predict('coffee', second, { multimask: false, mirrorAverage: false })).candidates[0];
    return [a, b];
  }

  it('fp32: logits equal within float rounding, masks identical, with and without a mask prompt', async () => {
    const reference = await session(engines.single);
    const candidate = await session(engines.split);
    for (const [i, r] of reference.entries()) {
      let largest = 0;
      for (let k = 0; k < r.lowResLogits.length; k++) largest = Math.max(largest, Math.abs(r.lowResLogits[k] - candidate[i].lowResLogits[k]));
      expect(largest).toBeLessThan(1e-3);
      expect(maskIoU(r.mask, candidate[i].mask)).toBeGreaterThanOrEqual(0.999);
    }
  });

  it('int8: the split pair agrees with the single int8 decoder (IoU ≥ 0.99)', async () => {
    const reference = await session(engines.singleInt8);
    const candidate = await session(engines.splitInt8);
    for (const [i, r] of reference.entries()) expect(maskIoU(r.mask, candidate[i].mask)).toBeGreaterThanOrEqual(0.99);
  });
});
