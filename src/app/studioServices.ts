import { EngineSession } from './inference/engineSession';
import { InferenceScheduler } from './inference/inferenceScheduler';
import { apiSegmenter } from './inference/remoteSegmenter';
import { indexedDbEmbeddings } from './inference/embeddingStore';
import { browserModelVariants } from './inference/modelVariants';
import { OutlineFollower } from './inference/outlines';
import { embeddingFromServer } from './inference/serverStart';
import { rgbaOf } from './images/imageLibrary';
import { ACCOUNT_QUERY, queryClient } from './queryClient';
import { useDetail } from './state/detailStore';
import { useEarlyMask } from './state/earlyMaskStore';
import { useEngineStatus } from './state/engineStatus';
import { useHoverPreview } from './state/hoverPreviewStore';
import { useInferenceMode } from './state/inferenceModeStore';
import { usePreferences } from './state/preferences';
import { studioPromptDocument } from './inference/promptEdits';
import { useRemoteSettings } from './state/remoteSettingsStore';
import { useTool } from './state/toolStore';
import { useUi } from './state/uiStore';

/** Embeddings kept in this browser; logging out forgets them (account/AccountPage.tsx). */
export const storedEmbeddings = indexedDbEmbeddings();

/**
 * The studio's engine session, built here on the page's stores, preferences and workers, and
 * injected into what uses it (the inference scheduler, text prompts, find similar, outlines).
 * This module is the studio's composition root: the services that live as long as the page are
 * made here, once, so the modules they come from (inference/) hold no state of their own.
 */
export const engineSession = new EngineSession({
  async launch(options) {
    const { startEngineWorker } = await import('../engine/worker/client');
    return startEngineWorker({ ...options, modelBaseUrl: `${import.meta.env.BASE_URL}models/` });
  },
  models: () => browserModelVariants(),
  status: () => useEngineStatus.getState(),
  pixels: rgbaOf,
  stored: storedEmbeddings,
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

/** Decides when and where each prompt is answered (local or remote), on the session's engine. */
export const scheduler = new InferenceScheduler({
  document: studioPromptDocument,
  decoder: engineSession,
  remote: apiSegmenter,
  settings: () => ({
    mode: useInferenceMode.getState().mode,
    tool: useTool.getState().tool,
    tolerance: useDetail.getState().tolerance,
    remote: useRemoteSettings.getState().remote,
    // Server start is for devices too slow to run the encoder, which the mirror image would need.
    mirrorPass: usePreferences.getState().embeddingSource === 'device',
  }),
  preview: {
    current: () => useHoverPreview.getState().preview,
    show: (preview) => useHoverPreview.getState().setPreview(preview),
  },
  earlyMask: {
    show: (early) => useEarlyMask.getState().show(early),
    clear: (imageId, revision) => useEarlyMask.getState().clear(imageId, revision),
  },
});

// A preview belongs to the tool and the mode it was asked under.
useTool.subscribe((now, before) => now.tool !== before.tool && scheduler.stopHover());
useInferenceMode.subscribe((now, before) => now.mode !== before.mode && scheduler.stopHover());
