import { boxToCornerRect } from './geometry/centerBox';
import { edits } from './state/editActions';
import { writePromptEdit } from './inference/promptEdits';
import { currentDocument } from './state/studioStore';
import { scheduler } from './studioServices';
import type { ToolOutput } from './tools/types';

/**
 * Where tool outputs go: to the document (inference/promptEdits.ts, editActions) and, for prompt edits,
 * to the studio's one inference scheduler (built in studioServices.ts).
 */

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
      case 'addBox': {
        const { left, top, width, height } = boxToCornerRect(output.box);
        edits.addBox([left, top, width, height]);
        break;
      }
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
