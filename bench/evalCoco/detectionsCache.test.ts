import { describe, expect, it } from 'vitest';
import { fitDescriptor } from '../../src/engine/learn/descriptors';
import { withFitDescriptors, type CachedDetections } from './detectionsCache';
import { LEARN_CACHE_VERSION, type CachedPhoto } from './learnCache';

describe('withFitDescriptors', () => {
  it("adds each cached region's fit from its box and the photo's detections, keeping its other kinds and the photo as it was", () => {
    const descriptor = { sam: [1], detectors: [0.5], appearance: [0.2], backbone: [] };
    const raccoon = { x0: 10, y0: 10, x1: 50, y1: 40 };
    const withSurroundings = { x0: 0, y0: 0, x1: 80, y1: 60 };
    const photo: CachedPhoto = {
      version: LEARN_CACHE_VERSION,
      file: 'a.jpg',
      width: 80,
      height: 60,
      instances: [{ categoryId: 1, crowd: false, boxOnly: true, box: raccoon, descriptor }],
      proposals: [{ box: withSurroundings, area: 4000, confidence: 0.9, source: 'grid', descriptor, overlaps: [0.25] }],
      ms: { embed: 0, everything: 0, detect: 0, describe: 0 },
    };
    const detections: CachedDetections = [{ label: 'cat', score: 0.6, box: raccoon, detector: 'coco-ssd' }];
    const replayed = withFitDescriptors(photo, detections);
    const asDetections = [{ ...detections[0], classIndex: -1 }];
    expect(replayed.instances[0].descriptor).toEqual({ ...descriptor, fit: fitDescriptor(asDetections, raccoon) });
    expect(replayed.proposals[0].descriptor).toEqual({ ...descriptor, fit: fitDescriptor(asDetections, withSurroundings) });
    expect(replayed.proposals[0].descriptor.fit![0]).toBeGreaterThan(0);
    expect(replayed.instances[0].descriptor.fit).toEqual([0, 0, 0.6]);
    expect(photo.proposals[0].descriptor).not.toHaveProperty('fit');
  });
});
