import { uploadScaleFor } from '../geometry/uploadScale';
import { encodeForUpload, imageElement } from '../images/imageLibrary';
import type { RemoteSettings } from '../state/remoteSettingsStore';
import type { EmbeddingRecord } from '../../engine/service/api';
import { fallbackNotice, fetchServerEmbedding, problemOf } from './serverEmbedding';

/** What Server start needs of the page, read when the embedding is asked for. */
export interface ServerStartPorts {
  remote(): RemoteSettings;
  /** Tells the user why this device's encoder runs instead. */
  notice(message: string): void;
  /** The server charged the account: its balance is stale. */
  charged(): void;
}

/**
 * Server start in the studio: the open photo's embedding is asked of the server (the photo scaled to
 * the model's 1024 px, as Remote mode sends it). Answers undefined — and tells the user why — when
 * the server gives none, so the caller runs this device's encoder instead.
 */
export async function embeddingFromServer(imageId: string, encoderModel: string, ports: ServerStartPorts): Promise<EmbeddingRecord | undefined> {
  const element = imageElement(imageId);
  if (!element) return undefined;
  try {
    const image = await encodeForUpload(imageId, uploadScaleFor(element.naturalWidth, element.naturalHeight));
    const { record } = await fetchServerEmbedding(ports.remote(), image, encoderModel);
    ports.charged();
    return record;
  } catch (error) {
    ports.notice(fallbackNotice(problemOf(error)));
    return undefined;
  }
}
