import { EngineSession } from './inference/engineSession';
import { loadEmbedding, saveEmbedding } from './inference/embeddingStore';
import { browserModelVariants } from './inference/modelVariants';
import { OutlineFollower } from './inference/outlines';
import { embeddingFromServer } from './inference/serverStart';
import { rgbaOf } from './images/imageLibrary';
import { ACCOUNT_QUERY, queryClient } from './queryClient';
import { useEngineStatus } from './state/engineStatus';
import { usePreferences } from './state/preferences';
import { useRemoteSettings } from './state/remoteSettingsStore';
import { useUi } from './state/uiStore';

/**
 * The studio's engine session, built here on the page's stores, preferences and workers, and
 * injected into what uses it (the inference scheduler, text prompts, find similar, outlines).
 */
export const engineSession = new EngineSession({
  async launch(options) {
    const { startEngineWorker } = await import('../engine/worker/client');
    return startEngineWorker({ ...options, modelBaseUrl: `${import.meta.env.BASE_URL}models/` });
  },
  models: () => browserModelVariants(),
  status: () => useEngineStatus.getState(),
  pixels: rgbaOf,
  stored: { load: loadEmbedding, save: saveEmbedding },
  serverStart: () => usePreferences.getState().embeddingSource === 'server',
  serverEmbedding: (imageId, encoderModel) =>
    embeddingFromServer(imageId, encoderModel, {
      remote: () => useRemoteSettings.getState().remote,
      notice: (message) => useUi.getState().setNotice(message),
      charged: () => void queryClient.invalidateQueries({ queryKey: ACCOUNT_QUERY }),
    }),
});

/** The outlines on screen, kept at the Detail slider's tolerance by the session's engine. */
export const outlines = new OutlineFollower((masks, outline) => engineSession.retrace(masks, outline));
