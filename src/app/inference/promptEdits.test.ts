import { beforeEach, describe, expect, it } from 'vitest';
import { LIMITS } from '../../contract/limits';
import { useEdit } from '../state/editStore';
import { emptyDocument, emptyPrompt } from '../state/model';
import { studioPromptDocument, writePromptEdit } from './promptEdits';
import { currentDocument, studio, useStudio } from '../state/studioStore';

const IMAGE = { id: 'coffee', name: 'coffee.png', width: 600, height: 400 };
const square = { outer: [[100, 100], [200, 100], [200, 200], [100, 200]] as [number, number][], holes: [] };

beforeEach(() => {
  useStudio.getState().load(emptyDocument());
  useEdit.getState().select([]);
  studio.addImage(IMAGE);
});

describe('writePromptEdit', () => {
  it('a point is one undo step on the active image; the edit says what the prompt was and its new revision', () => {
    const before = studioPromptDocument.prompt(IMAGE.id);
    const edit = writePromptEdit({ type: 'addPoint', point: { x: 10, y: 20, positive: false } });
    expect(edit).toMatchObject({ imageId: IMAGE.id, before, point: { x: 10, y: 20, positive: false } });
    const after = studioPromptDocument.prompt(IMAGE.id);
    expect(after.points).toEqual([{ x: 10, y: 20, positive: false }]);
    expect(after.revision).toBe(edit!.revision);
    expect(edit!.revision).not.toBe(before.revision);
    studio.undo();
    expect(studioPromptDocument.prompt(IMAGE.id).points).toEqual([]);
  });

  it('a box reaching past the image is clamped to it', () => {
    const edit = writePromptEdit({ type: 'setBox', box: { x: 580, y: 20, width: 100, height: 20 } });
    expect(edit?.point).toBeUndefined();
    const box = studioPromptDocument.prompt(IMAGE.id).box!;
    expect(box.x + box.width / 2).toBeLessThanOrEqual(IMAGE.width);
    expect(box.y).toBe(20);
  });

  it('with one object selected, a click first starts refining it from its own prompt', () => {
    studio.addObjects(IMAGE.id, [{ label: 'cup', confidence: 0.9, visible: true, polygons: [square], source: 'local', prompt: { points: [{ x: 150, y: 150, positive: true }], box: null } }]);
    const objectId = currentDocument().objects[IMAGE.id][0].id;
    useEdit.getState().select([objectId]);
    const edit = writePromptEdit({ type: 'addPoint', point: { x: 120, y: 180, positive: false } })!;
    expect(edit.before.targetObjectId).toBe(objectId);
    expect(edit.before.points).toEqual([{ x: 150, y: 150, positive: true }]);
    expect(studioPromptDocument.prompt(IMAGE.id).points).toHaveLength(2);
  });

  it('writes nothing once the prompt holds the most points the API takes, or with no image open', () => {
    const full = Array.from({ length: LIMITS.pointsMax }, (_, i) => ({ x: i % 600, y: 1, positive: true }));
    useStudio.getState().load({ ...currentDocument(), prompts: { [IMAGE.id]: { ...emptyPrompt(), points: full } } });
    expect(writePromptEdit({ type: 'addPoint', point: { x: 5, y: 5 } })).toBeNull();
    expect(studioPromptDocument.prompt(IMAGE.id).points).toHaveLength(LIMITS.pointsMax);
    useStudio.getState().load(emptyDocument());
    expect(writePromptEdit({ type: 'setBox', box: { x: 5, y: 5, width: 4, height: 4 } })).toBeNull();
  });
});
