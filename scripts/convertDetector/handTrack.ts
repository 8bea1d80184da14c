/**
 * HandTrack (an SSD-MobileNetV2-FPN hand detector of the TensorFlow object detection API, trained by
 * @vladmandic/human's author on hand gestures; MIT) as shipped in `@vladmandic/human` (models/handtrack.*).
 *
 * As for COCO-SSD, the TF graph's resize loop and its post-processing (decode, NMS) are cut off: the
 * ONNX model takes the 320×320 RGB image (0..255, float) where the loop would hand it over, applies
 * the graph's own normalisation constants (which commute with the resize), and returns the raw box
 * encodings, the class logits (background + hand, fist, pinch, point, face, tip, pinchtip) and the
 * anchors (centre y, centre x, height, width, folded into the graph as constants).
 * src/engine/text/handTrack.ts decodes, scores and suppresses them.
 */
import { HANDTRACK_INPUT, HANDTRACK_INPUT_SIZE, HANDTRACK_OUTPUTS } from '../../src/engine/text/handTrack';
import type { TfjsSource } from '../convertDetector';
import { withFixedInput } from './cutGraph';
import type { TfjsGraphModelJson } from './tfjsToOnnx';

export { HANDTRACK_INPUT, HANDTRACK_INPUT_SIZE, HANDTRACK_OUTPUTS };

export const HANDTRACK_SOURCE: TfjsSource = {
  npmPackage: '@vladmandic/human',
  modelJson: 'models/handtrack.json',
  sha256: {
    'models/handtrack.json': 'a27d86daea1799c65dd0ad99ea1855a6b6dc721bf7ba4d4eb1a138c9e51d5755',
    'models/handtrack.bin': '70164f725aefbbf8094a8ef4150dc10e906b6f0976b484ef8ec882d3eae4b812',
  },
  upstream: 'HandTrack SSD-MobileNetV2-FPN of vladmandic/human (MIT), TensorFlow object detection API',
  outputs: Object.values(HANDTRACK_OUTPUTS),
};

const LOOP_BODY = 'StatefulPartitionedCall/map/while/body/_410/map/while';
/** Where the preprocessing loop hands the resized, normalised batch to the feature extractor. */
const RESIZED_BATCH = 'StatefulPartitionedCall/map/TensorArrayV2Stack/TensorListStack';

/** The graph with a fixed-size float input (0..255) in place of the resize loop's output. */
export function cutHandTrackGraph(model: TfjsGraphModelJson): TfjsGraphModelJson {
  return withFixedInput(model, RESIZED_BATCH, { name: HANDTRACK_INPUT, shape: [1, HANDTRACK_INPUT_SIZE, HANDTRACK_INPUT_SIZE, 3] }, [
    // The loop's own normalisation, x · mul − sub, moved after the (linear) resize.
    { name: 'image/normalize/mul', op: 'Mul', input: [HANDTRACK_INPUT, `${LOOP_BODY}/Preprocessor/mul/x`], attr: { T: { type: 'DT_FLOAT' } } },
    { name: 'image/normalize/sub', op: 'Sub', input: ['image/normalize/mul', `${LOOP_BODY}/Preprocessor/sub/y`], attr: { T: { type: 'DT_FLOAT' } } },
  ]);
}
