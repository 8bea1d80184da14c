import { beforeEach, describe, expect, it } from 'vitest';
import { setReviewState } from '../state/reviewOps';
import { addObjects, updateObject } from '../state/documentOps';
import { loadReviewSession, square } from '../state/reviewSession';
import { useEdit } from '../state/editStore';
import { currentDocument, useStudio } from '../state/studioStore';
import { runKey } from './registry';

const ctrlA = () => runKey({ key: 'a', ctrlKey: true, metaKey: false, shiftKey: false, altKey: false })?.id ?? null;

describe('Ctrl+A, select every object of the image', () => {
  beforeEach(loadReviewSession);

  it('selects what a click could pick on the shown image: not hidden, rejected or image tags, nothing of another image', () => {
    let doc = addObjects(currentDocument(), 'a', [
      { id: 'hidden', label: 'x', classId: null, confidence: 1, visible: true, polygons: square(60), source: 'local' },
      { id: 'tag', kind: 'tag', label: 'x', classId: null, confidence: 1, visible: true, polygons: [], source: 'local' },
      { id: 'box', kind: 'box', box: [1, 1, 5, 5], label: 'x', classId: null, confidence: 1, visible: true, polygons: [], source: 'local' },
    ]);
    doc = updateObject(doc, 'a', 'hidden', { visible: false });
    doc = setReviewState(doc, 'a', ['p2'], 'rejected');
    useStudio.getState().load(doc);
    expect(ctrlA()).toBe('select-all');
    expect(useEdit.getState().selection).toEqual(['p1', 'box']);
  });

  it('passes the key on when the image has nothing to select', () => {
    useStudio.getState().load({ ...currentDocument(), objects: { ...currentDocument().objects, a: [] } });
    expect(ctrlA()).toBe(null);
    expect(useEdit.getState().selection).toEqual([]);
  });
});
