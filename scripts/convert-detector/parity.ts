/**
 * Runs the original TF.js graph (TF.js pure-JS CPU backend, a dev dependency used only here) and
 * the converted ONNX model (onnxruntime-node) on the same input and reports the largest absolute
 * difference per output. Used by the parity test and by `tsx scripts/convert-detector/parity.ts`.
 */
import * as tf from '@tensorflow/tfjs';
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import { readDetectorSource, DETECTOR_SOURCE } from '../convert-detector';
import { convertTfjsGraphModel } from './tfjs-to-onnx';

export interface ParityResult {
  readonly image: string;
  readonly maxAbsDiff: Record<string, number>;
  /** Largest magnitude seen in the TF.js output, to read the difference against. */
  readonly maxAbsValue: Record<string, number>;
}

/** 1x512x512x3 float32 RGB in 0..255, stretched, as the detector consumes it. */
export async function detectorInput(path: string, size = 512): Promise<Float32Array> {
  const { data } = await sharp(path).removeAlpha().resize(size, size, { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
  return Float32Array.from(data);
}

export async function compareWithTfjs(imagePaths: readonly string[], outputs: readonly string[] = DETECTOR_SOURCE.outputs): Promise<ParityResult[]> {
  await tf.setBackend('cpu');
  const { model, weights } = readDetectorSource();
  const graph = await tf.loadGraphModel(
    tf.io.fromMemory({
      modelTopology: model.modelTopology as never,
      weightSpecs: model.weightsManifest.flatMap((g) => g.weights) as never,
      weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength) as ArrayBuffer,
      format: model.format,
      signature: model.signature as never,
    }),
  );
  const { onnx } = convertTfjsGraphModel(model, weights, { outputs });
  const session = await ort.InferenceSession.create(onnx, { intraOpNumThreads: 1 });
  const inputName = Object.keys(model.signature?.inputs ?? {})[0] ?? 'tower_0/images';
  const results: ParityResult[] = [];
  try {
    for (const path of imagePaths) {
      const input = await detectorInput(path);
      const tfInput = tf.tensor4d(input, [1, 512, 512, 3]);
      const expected = (await graph.executeAsync(tfInput, [...outputs])) as tf.Tensor[];
      const actual = await session.run({ [inputName]: new ort.Tensor('float32', input, [1, 512, 512, 3]) });
      const maxAbsDiff: Record<string, number> = {};
      const maxAbsValue: Record<string, number> = {};
      outputs.forEach((name, i) => {
        const e = expected[i].dataSync();
        const a = actual[name].data as Float32Array;
        if (a.length !== e.length) throw new Error(`${name}: ${a.length} values from ONNX, ${e.length} from TF.js`);
        let diff = 0;
        let mag = 0;
        for (let j = 0; j < e.length; j++) {
          diff = Math.max(diff, Math.abs(a[j] - e[j]));
          mag = Math.max(mag, Math.abs(e[j]));
        }
        maxAbsDiff[name] = diff;
        maxAbsValue[name] = mag;
      });
      tf.dispose([tfInput, ...expected]);
      results.push({ image: path, maxAbsDiff, maxAbsValue });
    }
  } finally {
    await session.release();
    graph.dispose();
  }
  return results;
}

if (process.argv[1]?.endsWith('parity.ts')) {
  const args = process.argv.slice(2);
  const extra = args.filter((a) => a.startsWith('--output=')).map((a) => a.slice('--output='.length));
  const images = args.filter((a) => !a.startsWith('--'));
  compareWithTfjs(images, [...DETECTOR_SOURCE.outputs, ...extra]).then((results) => {
    for (const r of results) console.log(r.image, JSON.stringify(r.maxAbsDiff), JSON.stringify(r.maxAbsValue));
  });
}
