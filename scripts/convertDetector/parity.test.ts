import { describe, expect, it } from 'vitest';
import { compareBlazeFaceWithTfjs, compareCocoSsdWithTfjs, compareOpenImagesSsdWithTflite, compareWithTfjs } from './parity';
import { sharedPath } from '../../test/support/sharedData';
import { COCO_SSD_FEATURES } from '../../src/engine/text/cocoSsd';

/**
 * The converted ONNX detector against the original TF.js graph (TF.js CPU backend) on real photos.
 *
 * The class heat map (sigmoid outputs in [0, 1]) must agree within 1e-4. The box-size map is in
 * input pixels (values up to ~330, the network's head output × 16): there float32 summation order
 * alone moves the last bits, so it is held to 1e-4 before the ×16 scaling (the raw head) and to a
 * relative 1e-5 after it; the decoded detections likewise (relative to the 512-pixel frame).
 */
describe('TF.js → ONNX detector conversion', () => {
  it('matches the original graph on real photos', async () => {
    const head = 'tower_0/CenternetHead/centernet_wh_output/BiasAdd';
    const results = await compareWithTfjs(
      [sharedPath('samples/chelsea.png'), sharedPath('eval/coco-tiny/images/000000005001.jpg')],
      ['tower_0/keypoints', 'tower_0/wh', 'tower_0/detections', head],
    );
    for (const r of results) {
      expect(r.maxAbsDiff['tower_0/keypoints'], r.image).toBeLessThanOrEqual(1e-4);
      expect(r.maxAbsDiff[head], r.image).toBeLessThanOrEqual(1e-4);
      expect(r.maxAbsDiff['tower_0/wh'] / r.maxAbsValue['tower_0/wh'], r.image).toBeLessThanOrEqual(1e-5);
      expect(r.maxAbsDiff['tower_0/detections'] / 512, r.image).toBeLessThanOrEqual(1e-5);
      // Not vacuous: the photos do light up the heat map.
      expect(r.maxAbsValue['tower_0/keypoints']).toBeGreaterThan(0.3);
    }
  });

  it('COCO-SSD, cut before TF post-processing, matches the original graph on real photos', async () => {
    const results = await compareCocoSsdWithTfjs([sharedPath('samples/chelsea.png'), sharedPath('eval/coco-tiny/images/000000005001.jpg')]);
    for (const r of results) {
      // Box encodings and class logits (magnitudes up to ~20): float32 summation order only.
      expect(r.maxAbsDiff.concat / r.maxAbsValue.concat, r.image).toBeLessThanOrEqual(1e-5);
      expect(r.maxAbsDiff.concat_1 / r.maxAbsValue.concat_1, r.image).toBeLessThanOrEqual(1e-5);
      expect(r.maxAbsDiff['Postprocessor/ExpandDims'], r.image).toBe(0);
      expect(r.maxAbsValue.concat_1).toBeGreaterThan(1);
      // The backbone map learned classes pool (ReLU6, so values up to 6): exposed as TF computes it.
      expect(r.maxAbsDiff[COCO_SSD_FEATURES] / r.maxAbsValue[COCO_SSD_FEATURES], r.image).toBeLessThanOrEqual(1e-5);
      expect(r.maxAbsValue[COCO_SSD_FEATURES]).toBeGreaterThan(1);
    }
  });

  it('BlazeFace (face detector) matches the original graph on real photos', async () => {
    const results = await compareBlazeFaceWithTfjs([sharedPath('samples/astronaut.png'), sharedPath('samples/chelsea.png')]);
    for (const r of results) {
      for (const output of ['Identity', 'Identity_1', 'Identity_2', 'Identity_3']) {
        expect(r.maxAbsDiff[output] / r.maxAbsValue[output], `${r.image} ${output}`).toBeLessThanOrEqual(1e-5);
      }
    }
    // Not vacuous: the regressors are in input pixels (box sizes of tens of pixels).
    expect(results[0].maxAbsValue.Identity_2).toBeGreaterThan(10);
  });

  it('the Open Images SSD (a float16 .tflite) matches TFLite\'s own interpreter on real photos', async () => {
    const results = await compareOpenImagesSsdWithTflite([sharedPath('samples/astronaut.png'), sharedPath('eval/coco-tiny/images/000000005001.jpg')]);
    for (const r of results) {
      // Box encodings and class logits (magnitudes up to ~100 on empty anchors): both runtimes compute
      // in float32 from the same float16 weights; only the summation order differs (XNNPACK vs MLAS).
      for (const output of ['raw_outputs/box_encodings', 'raw_outputs/class_predictions']) {
        expect(r.maxAbsDiff[output] / r.maxAbsValue[output], `${r.image} ${output}`).toBeLessThanOrEqual(1e-5);
      }
      expect(r.maxAbsValue['raw_outputs/class_predictions']).toBeGreaterThan(1);
    }
  });
});
