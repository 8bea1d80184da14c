import { describe, expect, it } from 'vitest';
import { addImage } from '../state/documentOps';
import { emptyDocument } from '../state/model';
import { type ImageEntry } from '../../annotations/annotation';
import { proposedBy, reviewStateOf } from '../../annotations/review';
import { currentDocument, studio, useStudio } from '../state/studioStore';
import { labelAllImages, labellingOrder, type LabelAllProgress } from './labelAll';
import type { TextSegmenter } from './textSegmentation';

const images: ImageEntry[] = ['a', 'b', 'c'].map((id) => ({ id, name: `${id}.png`, width: 40, height: 40 }));

/**
 * The text path's seam (textSegmentation.ts) answered here: each image has one cup, a square. The
 * local engine behind it is tested in engineSession.test.ts; this is about order, landing and Stop.
 */
function squares(asked: string[], onAsk?: (image: ImageEntry) => void): TextSegmenter {
  return {
    runsOn: 'browser',
    async segment(image, prompts) {
      asked.push(image.id);
      onAsk?.(image);
      const polygons = [{ outer: [[5, 5], [25, 5], [25, 25], [5, 25]] as [number, number][], holes: [] }];
      return { objects: [{ label: prompts[0], confidence: 0.8, visible: true, polygons, source: 'text' as const, review: proposedBy('text-prompt') }], requestId: null, refunded: false };
    },
  };
}

function session(active: string) {
  const doc = images.reduce((d, i) => addImage(d, i), emptyDocument());
  useStudio.getState().load({ ...doc, activeImageId: active });
}

describe('label all', () => {
  it('orders the current image first, then the others as listed', () => {
    expect(labellingOrder(images, 'b').map((i) => i.id)).toEqual(['b', 'a', 'c']);
    expect(labellingOrder(images, null).map((i) => i.id)).toEqual(['a', 'b', 'c']);
  });

  it('runs on every image, current first; each image’s answer lands as proposals of the class, one undo step per image', async () => {
    session('c');
    const asked: string[] = [];
    const seen: LabelAllProgress[] = [];
    const end = await labelAllImages(images, 'c', ['cup'], squares(asked), new AbortController().signal, (p) => seen.push(p));
    expect(asked).toEqual(['c', 'a', 'b']);
    expect(end).toMatchObject({ done: 3, total: 3, added: 3, working: null, stopped: false });
    expect(seen.map((p) => p.done)).toEqual([0, 0, 1, 1, 2, 2, 3, 3]);
    const doc = currentDocument();
    const cup = doc.classes.find((c) => c.name === 'cup')!;
    for (const image of images) {
      expect(doc.objects[image.id].map((o) => [reviewStateOf(o), o.review?.source, o.classId])).toEqual([['unreviewed', 'text-prompt', cup.id]]);
    }
    expect(useStudio.getState().history.labels).toEqual(['label all “cup” on c.png', 'label all “cup” on a.png', 'label all “cup” on b.png']);
    studio.undo();
    expect(currentDocument().objects.b).toEqual([]);
    // A second run adds nothing: every cup is already there.
    studio.redo();
    const again = await labelAllImages(images, 'c', ['cup'], squares([]), new AbortController().signal, () => undefined);
    expect(again).toMatchObject({ added: 0, leftOut: ['repeats-accepted', 'repeats-accepted', 'repeats-accepted'] });
  });

  it('Stop ends the run: the image in progress is dropped, no later image is asked', async () => {
    session('a');
    const controller = new AbortController();
    const asked: string[] = [];
    const end = await labelAllImages(images, 'a', ['cup'], squares(asked, (image) => image.id === 'b' && controller.abort()), controller.signal, () => undefined);
    expect(asked).toEqual(['a', 'b']);
    expect(end).toMatchObject({ done: 1, added: 1, stopped: true });
    expect(currentDocument().objects.b).toEqual([]);
    expect(currentDocument().objects.c).toEqual([]);
  });
});
