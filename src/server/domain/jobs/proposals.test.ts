import { describe, expect, it } from 'vitest';
import type { AnnotationObject } from '../../../contract/projects';
import { addProposals, learnedClassNames, proposalsFrom } from './proposals';

const IMAGE = { jobId: 'job_1.img_1', imageId: 'img_1', width: 400, height: 300 };
const box = (x: number, y: number, w: number, h: number): [number, number][] => [[x, y], [x + w, y], [x + w, y + h], [x, y + h]];

const object = (id: string, ring: [number, number][], extra: Partial<AnnotationObject> = {}): AnnotationObject => ({
  id,
  classId: null,
  polygons: [{ outer: ring, holes: [] }],
  source: 'local',
  confidence: 1,
  visible: true,
  review: 'accepted',
  ...extra,
});

describe('auto-label proposals', () => {
  it("gives a learned job's proposals the project's class the model learned, by id (as the studio teaches) or else by name", () => {
    const classes = [{ id: 3, name: 'Raccoon', color: '#ff0000' }, { id: 4, name: 'fox', color: '#00ff00' }];
    const result = {
      predictions: [
        { classId: '3', confidence: 0.95, source: 'learned', masks: [box(10, 10, 50, 50)] },
        { classId: 'fox', confidence: 0.8, source: 'detector', masks: [box(100, 10, 50, 50)] },
        { classId: 'saucer', confidence: 0.6, source: 'learned', masks: [box(200, 10, 50, 50)] },
      ],
    };
    expect(proposalsFrom('learned', result, IMAGE, classes).map((p) => [p.proposedBy, p.review, p.classId, p.label, p.confidence])).toEqual([
      ['learned', 'unreviewed', 3, 'Raccoon', 0.95],
      ['learned', 'unreviewed', 4, 'fox', 0.8],
      ['learned', 'unreviewed', null, 'saucer', 0.6],
    ]);
    // What the detectors are asked for: the class's name, or the learned id where it names no class.
    expect(learnedClassNames(['3', 'fox', 'saucer'], classes)).toEqual({ '3': 'Raccoon', fox: 'fox', saucer: 'saucer' });
  });

  it('turns segment everything into unreviewed proposals named by the job and the prediction, leaving out rings of fewer than 3 points', () => {
    const result = {
      predictions: [
        { confidence: 0.9, masks: [box(10, 10, 50, 50)], source: 'detector', label: 'cat' },
        { confidence: 0.5, masks: [[[1, 1], [2, 2]]], source: 'grid' },
        { confidence: 0.4, masks: [box(200, 100, 30, 30)], source: 'grid' },
      ],
    };
    const proposals = proposalsFrom('everything', result, IMAGE, []);
    expect(proposals.map((p) => [p.id, p.review, p.proposedBy, p.label ?? null, p.source])).toEqual([
      ['job_1.img_1.0', 'unreviewed', 'segment-everything', 'cat', 'remote'],
      ['job_1.img_1.2', 'unreviewed', 'segment-everything', null, 'remote'],
    ]);
    // The same answer again names the same proposals: a rerun cannot add them twice.
    expect(proposalsFrom('everything', result, IMAGE, []).map((p) => p.id)).toEqual(proposals.map((p) => p.id));
  });

  it("labels a text prompt's proposals with the project class of that name", () => {
    const result = { prompt_results: [{ echo: { text: 'Cat' }, predictions: [{ label: 'Cat', confidence: 0.8, masks: [box(10, 10, 50, 50)] }] }, { echo: { text: 'tree' }, predictions: [{ label: 'tree', confidence: 0.7, masks: [box(100, 10, 50, 50)] }] }] };
    const proposals = proposalsFrom('text', result, IMAGE, [{ id: 7, name: 'cat', color: '#ff0000' }]);
    expect(proposals.map((p) => [p.label, p.classId, p.proposedBy, p.source])).toEqual([
      ['Cat', 7, 'text-prompt', 'text'],
      ['tree', null, 'text-prompt', 'text'],
    ]);
  });

  it('keeps every stored object as it is and adds only proposals that are new and do not repeat an accepted object', () => {
    const mine = object('mine', box(10, 10, 100, 100));
    const theirs = object('theirs', box(200, 150, 60, 60), { review: 'unreviewed', proposedBy: 'text-prompt' });
    const already = object('job_1.img_1.3', box(300, 20, 40, 40), { review: 'rejected' });
    const proposals = [
      object('job_1.img_1.0', box(11, 11, 99, 99), { review: 'unreviewed' }), // the accepted object again
      object('job_1.img_1.1', box(200, 150, 60, 60), { review: 'unreviewed' }), // over a proposal, not an accepted object: offered
      object('job_1.img_1.2', box(130, 20, 50, 50), { review: 'unreviewed' }), // new
      object('job_1.img_1.3', box(300, 20, 40, 40), { review: 'unreviewed' }), // written before (a rerun): not again, the rejection stands
    ];
    const { objects, added } = addProposals([mine, theirs, already], proposals, IMAGE);
    expect(added.map((o) => o.id)).toEqual(['job_1.img_1.1', 'job_1.img_1.2']);
    expect(objects.slice(0, 3)).toEqual([mine, theirs, already]);
    expect(objects.map((o) => o.id)).toEqual(['mine', 'theirs', 'job_1.img_1.3', 'job_1.img_1.1', 'job_1.img_1.2']);
  });

  it('keeps a proposal too small to compare on the grid instead of dropping it', () => {
    const big = { width: 4000, height: 3000 };
    const tiny = object('job_1.img_1.0', box(5, 5, 3, 3), { review: 'unreviewed' });
    expect(addProposals([object('mine', box(1000, 1000, 500, 500))], [tiny], big).added.map((o) => o.id)).toEqual(['job_1.img_1.0']);
  });
});
