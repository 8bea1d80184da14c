/**
 * Runs the original TF.js graph (TF.js pure-JS CPU backend, a dev dependency used only here) and
 * the converted ONNX model (onnxruntime-node) on the same input and reports the largest absolute
 * difference per output. Used by the parity test and by `tsx scripts/convertDetector/parity.ts`.
 */
import * as tf from '@tensorflow/tfjs';
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import { readDetectorSource, readTfjsSource, DETECTOR_SOURCE } from '../convertDetector';
import { BLAZEFACE_SOURCE } from './blazeFace';
import { COCO_SSD_ANCHORS, COCO_SSD_INPUT, COCO_SSD_INPUT_SIZE, COCO_SSD_SOURCE, cutCocoSsdGraph } from './cocoSsd';
import { OPEN_IMAGES_SSD_INPUT, OPEN_IMAGES_SSD_OUTPUTS, readOpenImagesSsdSource } from './openImagesSsd';
import { convertTfjsGraphModel, type TfjsGraphModelJson } from './tfjsToOnnx';
import { createTfliteInterpreter } from './tfliteRuntime';
import { convertTfliteModel } from './tfliteToOnnx';

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

async function loadTfjsGraph(model: TfjsGraphModelJson, weights: Uint8Array): Promise<tf.GraphModel> {
  await tf.setBackend('cpu');
  return tf.loadGraphModel(
    tf.io.fromMemory({
      modelTopology: model.modelTopology as never,
      weightSpecs: model.weightsManifest.flatMap((g) => g.weights) as never,
      weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength) as ArrayBuffer,
      format: model.format,
      signature: model.signature as never,
    }),
  );
}

function compareOutputs(outputs: readonly string[], expected: readonly ArrayLike<number>[], actual: ort.InferenceSession.OnnxValueMapType): Omit<ParityResult, 'image'> {
  const maxAbsDiff: Record<string, number> = {};
  const maxAbsValue: Record<string, number> = {};
  outputs.forEach((name, i) => {
    const e = expected[i];
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
  return { maxAbsDiff, maxAbsValue };
}

export async function compareWithTfjs(imagePaths: readonly string[], outputs: readonly string[] = DETECTOR_SOURCE.outputs): Promise<ParityResult[]> {
  const { model, weights } = readDetectorSource();
  const inputName = Object.keys(model.signature?.inputs ?? {})[0] ?? 'tower_0/images';
  return compareSameInput(model, weights, imagePaths, { outputs, inputName, size: 512 });
}

/** A graph that takes the stretched image as floats, given to both runtimes alike (after `prepare`). */
async function compareSameInput(
  model: TfjsGraphModelJson,
  weights: Uint8Array,
  imagePaths: readonly string[],
  options: { outputs: readonly string[]; inputName: string; size: number; prepare?: (pixels: Float32Array) => Float32Array },
): Promise<ParityResult[]> {
  const { outputs, inputName, size } = options;
  const graph = await loadTfjsGraph(model, weights);
  const { onnx } = convertTfjsGraphModel(model, weights, { outputs });
  const session = await ort.InferenceSession.create(onnx, { intraOpNumThreads: 1 });
  const results: ParityResult[] = [];
  try {
    for (const path of imagePaths) {
      const pixels = await detectorInput(path, size);
      const input = options.prepare ? options.prepare(pixels) : pixels;
      const tfInput = tf.tensor4d(input, [1, size, size, 3]);
      const expected = (await graph.executeAsync(tfInput, [...outputs])) as tf.Tensor[];
      const actual = await session.run({ [inputName]: new ort.Tensor('float32', input, [1, size, size, 3]) });
      results.push({ image: path, ...compareOutputs(outputs, expected.map((t) => t.dataSync()), actual) });
      tf.dispose([tfInput, ...expected]);
    }
  } finally {
    await session.release();
    graph.dispose();
  }
  return results;
}

/**
 * COCO-SSD: the original graph is fed the 300×300 image as its uint8 `image_tensor` (its own
 * resize is then the identity), the ONNX model the same pixels as floats after the cut.
 */
export async function compareCocoSsdWithTfjs(imagePaths: readonly string[]): Promise<ParityResult[]> {
  const { model, weights } = readTfjsSource(COCO_SSD_SOURCE);
  const graph = await loadTfjsGraph(model, weights);
  const outputs = COCO_SSD_SOURCE.outputs;
  const { onnx } = convertTfjsGraphModel(cutCocoSsdGraph(model), weights, { outputs });
  const session = await ort.InferenceSession.create(onnx, { intraOpNumThreads: 1 });
  const size = COCO_SSD_INPUT_SIZE;
  const results: ParityResult[] = [];
  try {
    for (const path of imagePaths) {
      const input = await detectorInput(path, size);
      const tfInput = tf.tensor4d(Int32Array.from(input), [1, size, size, 3], 'int32');
      // The anchors are a constant of the graph: read from its weights rather than executed.
      const computed = outputs.filter((o) => o !== COCO_SSD_ANCHORS);
      const expected = (await graph.executeAsync({ image_tensor: tfInput }, computed)) as tf.Tensor[];
      const actual = await session.run({ [COCO_SSD_INPUT]: new ort.Tensor('float32', input, [1, size, size, 3]) });
      const anchors = graph.weights[COCO_SSD_ANCHORS][0];
      results.push({ image: path, ...compareOutputs([...computed, COCO_SSD_ANCHORS], [...expected, anchors].map((t) => t.dataSync()), actual) });
      tf.dispose([tfInput, ...expected]);
    }
  } finally {
    await session.release();
    graph.dispose();
  }
  return results;
}

/** BlazeFace: both graphs get the same 256×256 image, scaled to [-1, 1] as the detector feeds it. */
export async function compareBlazeFaceWithTfjs(imagePaths: readonly string[]): Promise<ParityResult[]> {
  const { model, weights } = readTfjsSource(BLAZEFACE_SOURCE);
  return compareSameInput(model, weights, imagePaths, {
    outputs: BLAZEFACE_SOURCE.outputs,
    inputName: 'input',
    size: 256,
    prepare: (pixels) => pixels.map((v) => v / 127.5 - 1),
  });
}

/**
 * The Open Images SSD: the original .tflite on TFLite's own interpreter (tfliteRuntime.ts) against
 * our ONNX on onnxruntime-node, both fed the same 300×300 image scaled to [-1, 1] as MediaPipe feeds it.
 */
export async function compareOpenImagesSsdWithTflite(imagePaths: readonly string[]): Promise<ParityResult[]> {
  const { tflite } = readOpenImagesSsdSource();
  const interpreter = await createTfliteInterpreter(tflite);
  const { onnx } = convertTfliteModel(tflite, { outputs: OPEN_IMAGES_SSD_OUTPUTS });
  const session = await ort.InferenceSession.create(onnx, { intraOpNumThreads: 1 });
  const size = 300;
  const results: ParityResult[] = [];
  try {
    for (const path of imagePaths) {
      const input = (await detectorInput(path, size)).map((v) => v / 127.5 - 1);
      const expected = interpreter.run(input);
      const actual = await session.run({ [OPEN_IMAGES_SSD_INPUT]: new ort.Tensor('float32', input, [1, size, size, 3]) });
      results.push({ image: path, ...compareOutputs(OPEN_IMAGES_SSD_OUTPUTS, OPEN_IMAGES_SSD_OUTPUTS.map((name) => expected[name].data), actual) });
    }
  } finally {
    await session.release();
    interpreter.release();
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
