/**
 * onnxruntime-node adapter (server, CLI, eval, bench). Node-only: never import it from the core
 * or from browser code.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import type { BackendInfo, ModelName, ModelSession, Runtime, Tensor } from '../runtime';
import { samFiles, type ModelPrecision } from '../catalog';
import { SegmentationEngine, type EmbeddingStore } from '../engine';
import { createPooledSession } from './decoderPool';

export interface NodeRuntimeOptions {
  /** Intra-op threads; defaults to the number of available cores. */
  threads?: number;
  /**
   * 2 or more: the per-click decoder runs on this many worker threads of one intra-op thread each
   * (decoderPool.ts), several runs at once for a caller that asks ahead (segment everything). A single
   * click then takes one thread's time, so the interactive path leaves it unset.
   */
  decoderWorkers?: number;
}

class NodeModelSession implements ModelSession {
  constructor(private readonly session: ort.InferenceSession) {}

  get inputNames(): readonly string[] {
    return this.session.inputNames;
  }

  get outputNames(): readonly string[] {
    return this.session.outputNames;
  }

  async run(feeds: Record<string, Tensor>, fetches?: readonly string[]): Promise<Record<string, Tensor>> {
    const ortFeeds: Record<string, ort.Tensor> = {};
    for (const [name, tensor] of Object.entries(feeds)) {
      ortFeeds[name] = new ort.Tensor('float32', tensor.data, tensor.dims);
    }
    const results = fetches ? await this.session.run(ortFeeds, [...fetches]) : await this.session.run(ortFeeds);
    const out: Record<string, Tensor> = {};
    for (const [name, value] of Object.entries(results)) {
      if (value.type !== 'float32') throw new Error(`output ${name} has type ${value.type}, expected float32`);
      out[name] = { data: value.data as Float32Array, dims: value.dims };
    }
    return out;
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

export function createNodeRuntime(options: NodeRuntimeOptions = {}): Runtime {
  const threads = Math.max(1, options.threads ?? availableParallelism());
  const backend: BackendInfo = { name: 'onnxruntime-node-cpu', threads };
  return {
    backend,
    async createSession(name: ModelName, model: string | Uint8Array): Promise<ModelSession> {
      if (name === 'decoder' && (options.decoderWorkers ?? 1) > 1) return createPooledSession(model, options.decoderWorkers!);
      const sessionOptions: ort.InferenceSession.SessionOptions = {
        executionProviders: ['cpu'],
        graphOptimizationLevel: 'all',
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
      };
      const session =
        typeof model === 'string'
          ? await ort.InferenceSession.create(model, sessionOptions)
          : await ort.InferenceSession.create(model, sessionOptions);
      return new NodeModelSession(session);
    },
  };
}

/** <repo>/public/models, found from this file's location (works from src/ with tsx). */
export function defaultModelDir(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '../../../public/models');
}

export type { ModelPrecision };

export interface LoadNodeEngineOptions extends NodeRuntimeOptions {
  modelDir?: string;
  embeddingCacheSize?: number;
  embeddingStore?: EmbeddingStore;
  /** 'int8': sam-encoder-int8.onnx (scripts/onnxQuantize.mjs). Default 'fp32'. */
  encoderPrecision?: ModelPrecision;
  /** 'int8': sam-decoder-int8.onnx. Default 'fp32'. */
  decoderPrecision?: ModelPrecision;
  /**
   * Default true: the decoder split into its once-per-image and per-click models
   * (scripts/onnxDecoderSplit.mjs; same masks, less work per click). False: the single decoder file.
   */
  splitDecoder?: boolean;
}

export async function loadNodeEngine(options: LoadNodeEngineOptions = {}): Promise<SegmentationEngine> {
  const modelDir = options.modelDir ?? defaultModelDir();
  const files = samFiles(options);
  const encoder = join(modelDir, files.encoder);
  const decoder = join(modelDir, files.decoder);
  const decoderPrecompute = files.decoderPrecompute ? join(modelDir, files.decoderPrecompute) : undefined;
  for (const file of [encoder, decoder, ...(decoderPrecompute ? [decoderPrecompute] : [])]) {
    if (!existsSync(file)) {
      throw new Error(`model file ${file} is missing; run \`npm run models\` to provision it`);
    }
  }
  const runtime = createNodeRuntime({ threads: options.threads, decoderWorkers: options.decoderWorkers });
  return SegmentationEngine.create(runtime, { encoder, decoder, decoderPrecompute }, {
    embeddingCacheSize: options.embeddingCacheSize,
    embeddingStore: options.embeddingStore,
  });
}
