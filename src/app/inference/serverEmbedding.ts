import { EmbeddingResponse } from '../../contract/embeddings';
import { dequantizeEmbedding } from '../../engine/embeddingCodec';
import type { EmbeddingRecord } from '../../engine/service/api';
import { paidCall, RemoteCallError, type RemoteConfig } from '../remote/remoteClient';

/**
 * "Server start": the photo's embedding comes from POST /api/v1/embeddings (1 credit per photo and
 * account, a free replay afterwards), and every click decodes in this browser. An embedding is used
 * only when the server's encoder is exactly this browser's (`file@sha256`), so a click never runs a
 * decoder on another model's embedding. Whenever the server cannot give one, the caller falls back to
 * this device's encoder, and `fallbackNotice` says why in words.
 */

/** How the studio names the choice (the price is the server's default for `service:embedding`). */
export const SERVER_START_LABEL = 'Server start, local clicks · 1 credit per photo';

export type ServerEmbeddingProblem = 'no-key' | 'offline' | 'credits' | 'model' | 'failed';

export class ServerEmbeddingUnavailable extends Error {
  override name = 'ServerEmbeddingUnavailable';
  constructor(
    readonly problem: ServerEmbeddingProblem,
    message: string,
  ) {
    super(message);
  }
}

function bytesOfBase64(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The served embedding as the worker takes it (fp32); refuses one made by another encoder. */
export function embeddingRecordOf(response: EmbeddingResponse, expectedModel: string): EmbeddingRecord {
  if (response.model.id !== expectedModel) {
    throw new ServerEmbeddingUnavailable('model', `the server's encoder (${response.model.id}) is not this browser's (${expectedModel})`);
  }
  const bytes = bytesOfBase64(response.embedding.data);
  const tensor = dequantizeEmbedding({
    dims: response.embedding.dims,
    scales: Float32Array.from(response.embedding.scales),
    data: new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
  });
  return { model: expectedModel, dims: [...tensor.dims], data: tensor.data };
}

/** Why a failed call cannot give an embedding, as one of the problems the studio explains. */
export function problemOf(error: unknown): ServerEmbeddingUnavailable {
  if (error instanceof ServerEmbeddingUnavailable) return error;
  if (error instanceof RemoteCallError) {
    if (error.status === 'network-error') return new ServerEmbeddingUnavailable('offline', error.message);
    if (error.status === 402) return new ServerEmbeddingUnavailable('credits', error.message);
    if (error.problemType === '/problems/model-mismatch') return new ServerEmbeddingUnavailable('model', error.message);
    if (error.status === 401) return new ServerEmbeddingUnavailable('no-key', error.message);
  }
  return new ServerEmbeddingUnavailable('failed', error instanceof Error ? error.message : String(error));
}

export interface ServedEmbedding {
  record: EmbeddingRecord;
  requestId: string | null;
}

/** Asks the server for the embedding of `image` (Base64, data URI allowed) made by `model`. */
export async function fetchServerEmbedding(config: RemoteConfig, image: string, model: string, signal?: AbortSignal): Promise<ServedEmbedding> {
  if (!config.apiKey) throw new ServerEmbeddingUnavailable('no-key', 'no API key');
  if (typeof navigator !== 'undefined' && navigator.onLine === false) throw new ServerEmbeddingUnavailable('offline', 'the browser is offline');
  try {
    const result = await paidCall(config, '/api/v1/embeddings', { image, model }, EmbeddingResponse, { signal });
    return { record: embeddingRecordOf(result.data, model), requestId: result.requestId };
  } catch (error) {
    throw problemOf(error);
  }
}

/** What the studio tells the user when Server start falls back to this device's encoder. */
export function fallbackNotice(problem: ServerEmbeddingUnavailable): string {
  const local = 'this photo is analysed on this device instead (free)';
  switch (problem.problem) {
    case 'no-key':
      return `Server start needs an API key (Remote settings): ${local}.`;
    case 'offline':
      return `The server cannot be reached: ${local}.`;
    case 'credits':
      return `No credit left for Server start: ${local}. Buy credits to use it again.`;
    case 'model':
      return `The server runs another model version than this browser: ${local}.`;
    case 'failed':
      return `Server start failed (${problem.message}): ${local}.`;
  }
}
