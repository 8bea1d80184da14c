import { ACCOUNT_QUERY, queryClient } from '../queryClient';
import { uploadScaleFor } from '../geometry/uploadScale';
import { encodeForUpload, imageElement } from '../images/imageLibrary';
import { usePreferences } from '../state/preferences';
import { useUi } from '../state/uiStore';
import { useRemoteSettings } from '../state/remoteSettingsStore';
import type { EmbeddingRecord } from '../../engine/worker/protocol';
import { fallbackNotice, fetchServerEmbedding, problemOf } from './serverEmbedding';

/**
 * Server start in the studio: when it is chosen, the open photo's embedding is asked of the server
 * (the photo scaled to the model's 1024 px, as Remote mode sends it). Answers undefined — and tells
 * the user why — when the server gives none, so the caller runs this device's encoder instead.
 */
export async function embeddingFromServer(imageId: string, encoderModel: string): Promise<EmbeddingRecord | undefined> {
  if (usePreferences.getState().embeddingSource !== 'server') return undefined;
  const element = imageElement(imageId);
  if (!element) return undefined;
  try {
    const image = await encodeForUpload(imageId, uploadScaleFor(element.naturalWidth, element.naturalHeight));
    const { record } = await fetchServerEmbedding(useRemoteSettings.getState().remote, image, encoderModel);
    void queryClient.invalidateQueries({ queryKey: ACCOUNT_QUERY });
    return record;
  } catch (error) {
    useUi.getState().setNotice(fallbackNotice(problemOf(error)));
    return undefined;
  }
}
