import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useLabelAll } from '../inference/labelAllStore';
import { handleShortcut } from '../shortcuts';
import { addImage } from '../state/documentOps';
import { useInferenceMode } from '../state/inferenceModeStore';
import { emptyDocument } from '../state/model';
import { useStudio } from '../state/studioStore';
import { useTool } from '../state/toolStore';
import { useUi } from '../state/uiStore';

const press = (key: string) => handleShortcut({ key, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, target: { tagName: 'BODY', isContentEditable: false } } as unknown as KeyboardEvent);
const labelAllProgress = (prompts: string[]) => ({ prompts, done: 1, total: 1, added: 0, leftOut: [], working: null, stopped: false });

describe('Label all as a command (L)', () => {
  beforeEach(() => {
    useStudio.getState().load(addImage(emptyDocument(), { id: 'a', name: 'a.png', width: 8, height: 8 }));
    useUi.setState({ page: 'studio', notice: null });
    useTool.getState().setTool('point');
    useInferenceMode.setState({ mode: 'local' });
    useLabelAll.setState({ progress: null, controller: null, error: null });
  });
  afterEach(() => useLabelAll.getState().stop());

  it('before any Label all run, opens the text panel and says to type the prompts there', () => {
    expect(press('l')).toBe(true);
    expect(useTool.getState().tool).toBe('text');
    expect(useUi.getState().notice).toMatch(/Label all once/);
    expect(useLabelAll.getState().controller).toBeNull();
  });

  it('after a run, starts another on every open image with that run’s prompts', () => {
    useLabelAll.setState({ progress: labelAllProgress(['cup', 'saucer']) });
    expect(press('L')).toBe(true);
    expect(useLabelAll.getState().controller).not.toBeNull();
    expect(useTool.getState().tool).toBe('text');
  });

  it('in Remote mode says it runs in this browser and starts nothing', () => {
    useInferenceMode.setState({ mode: 'remote' });
    useLabelAll.setState({ progress: labelAllProgress(['cup']) });
    press('l');
    expect(useLabelAll.getState().controller).toBeNull();
    expect(useUi.getState().notice).toMatch(/runs in this browser/);
  });
});
