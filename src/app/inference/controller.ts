import { edits } from '../state/editActions';
import { useDetail } from '../state/detailStore';
import { useEarlyMask } from '../state/earlyMaskStore';
import { useHoverPreview } from '../state/hoverPreviewStore';
import { useInferenceMode } from '../state/inferenceModeStore';
import { usePreferences } from '../state/preferences';
import { studioPromptDocument, writePromptEdit } from '../state/promptEdits';
import { useRemoteSettings } from '../state/remoteSettingsStore';
import { currentDocument } from '../state/studioStore';
import { useTool } from '../state/toolStore';
import type { ToolOutput } from '../tools/types';
import { InferenceScheduler } from './inferenceScheduler';
import { apiSegmenter } from './remoteSegmenter';
import { engineSession } from '../studioEngine';

/**
 * The studio's wiring: tool outputs go to the document (state/promptEdits.ts, editActions) and
 * prompt edits to the one inference scheduler, built here on the app's stores and engines.
 */

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

function activeImageId(): string | null {
  const doc = currentDocument();
  return doc.images.some((i) => i.id === doc.activeImageId) ? doc.activeImageId : null;
}

export function handleToolOutputs(outputs: readonly ToolOutput[]): void {
  for (const output of outputs) {
    const imageId = activeImageId();
    if (!imageId) return;
    switch (output.type) {
      case 'hover':
        scheduler.hoverAt(imageId, output.at);
        break;
      case 'select':
        edits.selectAt(output.at, output.additive);
        break;
      case 'stroke':
        edits.stroke(output.path, output.erase);
        break;
      case 'addPoint':
      case 'setBox': {
        const edit = writePromptEdit(output);
        if (edit) void scheduler.promptEdited(edit);
        break;
      }
    }
  }
}

/** Re-runs the current prompt (after switching mode, or a failure). */
export function rerunActivePrompt(): void {
  const imageId = activeImageId();
  if (imageId) void scheduler.rerun(imageId);
}

export function runRemote(imageId: string): Promise<void> {
  return scheduler.runRemote(imageId);
}
