/**
 * The original TFLite interpreter, for parity tests: the WebAssembly build of TFLite that ships in
 * `@tensorflow/tfjs-tflite` (a dev dependency used only here), run in Node.
 *
 * The package's JS client loads that WebAssembly through a <script> tag, which Node has not; its
 * Emscripten module is therefore instantiated here directly (the same factory the client calls,
 * given the .wasm bytes), and driven through the same embind API the client uses:
 * TFLiteWebModelRunner.CreateFromBufferAndOptions → GetInputs / Infer / GetOutputs.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

interface TensorInfo {
  readonly name: string;
  /** Comma-separated dimensions. */
  readonly shape: string;
  readonly dataType: string;
  /** A view into the interpreter's memory. */
  data(): Float32Array;
}
interface CppVector<T> {
  size(): number;
  get(index: number): T;
  delete(): void;
}
interface ModelRunner {
  GetInputs(): CppVector<TensorInfo>;
  GetOutputs(): CppVector<TensorInfo>;
  Infer(): boolean;
  delete(): void;
}
interface TfliteModule {
  HEAPU8: Uint8Array;
  _malloc(size: number): number;
  _free(pointer: number): void;
  TFLiteWebModelRunner: {
    CreateFromBufferAndOptions(pointer: number, size: number, options: Record<string, unknown>): { ok(): boolean; value(): ModelRunner; errorMessage(): string };
  };
}

export interface TfliteInterpreter {
  /** Runs the model on one float32 input; every output by name, copied out. */
  run(input: Float32Array): Record<string, { shape: number[]; data: Float32Array }>;
  release(): void;
}

function wasmDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@tensorflow/tfjs-tflite/package.json')), 'wasm');
}

/** The single-threaded, non-SIMD build: the plainest of the package's four. */
async function loadModule(): Promise<TfliteModule> {
  const dir = wasmDir();
  const source = readFileSync(join(dir, 'tflite_web_api_cc.js'), 'utf8');
  const factory = new Function(`${source}\nreturn tflite_web_api_ModuleFactory;`)() as (options: Record<string, unknown>) => Promise<TfliteModule>;
  return factory({ wasmBinary: readFileSync(join(dir, 'tflite_web_api_cc.wasm')), print: () => {}, printErr: () => {} });
}

export async function createTfliteInterpreter(model: Uint8Array): Promise<TfliteInterpreter> {
  const module = await loadModule();
  const pointer = module._malloc(model.byteLength);
  module.HEAPU8.set(model, pointer);
  const created = module.TFLiteWebModelRunner.CreateFromBufferAndOptions(pointer, model.byteLength, {
    numThreads: 1,
    enableProfiling: false,
    maxProfilingBufferEntries: 1024,
  });
  if (!created.ok()) throw new Error(`TFLite could not load the model: ${created.errorMessage()}`);
  const runner = created.value();
  const each = <T>(vector: CppVector<T>): T[] => {
    const items = Array.from({ length: vector.size() }, (_, i) => vector.get(i));
    vector.delete();
    return items;
  };
  return {
    run(input) {
      const [inputInfo, ...rest] = each(runner.GetInputs());
      if (rest.length > 0 || inputInfo.dataType !== 'float32') throw new Error('expected one float32 input');
      const view = inputInfo.data();
      if (view.length !== input.length) throw new Error(`input has ${input.length} values, the model takes ${view.length} (${inputInfo.shape})`);
      view.set(input);
      if (!runner.Infer()) throw new Error('TFLite inference failed');
      return Object.fromEntries(
        each(runner.GetOutputs()).map((o) => [o.name, { shape: o.shape.split(',').map(Number), data: Float32Array.from(o.data()) }]),
      );
    },
    release() {
      runner.delete();
      module._free(pointer);
    },
  };
}
