/**
 * BlazeFace (MediaPipe's short-range face detector, 256×256 "back" model) as shipped in the npm
 * package `@vladmandic/human` (models/blazeface.*; Apache-2.0 model, MIT package). The graph has no
 * post-processing: it returns per anchor a face logit and 16 regressors (box centre offset, box size,
 * six key points) in input pixels, for 512 anchors on a 16×16 grid and 384 on an 8×8 grid.
 * src/engine/text/blazeFace.ts builds the anchors, decodes, scores and suppresses them.
 */
import type { TfjsSource } from '../convertDetector';

export const BLAZEFACE_SOURCE: TfjsSource = {
  npmPackage: '@vladmandic/human',
  modelJson: 'models/blazeface.json',
  sha256: {
    'models/blazeface.json': 'cd7bbfc078270572beb39f9e5ae67aadbd50b5e67cff37e6d4f6b3ea39312e5f',
    'models/blazeface.bin': 'dc9a97fdc50bc43216554bdd69aa3e7b9361a519ee7bdd996a2f69a98a6f9b72',
  },
  upstream: 'MediaPipe BlazeFace (Apache-2.0), TF.js graph of vladmandic/human (MIT)',
  /** Logits [1,512,1] and regressors [1,512,16] of the 16×16 grid; logits [1,384,1] and regressors [1,384,16] of the 8×8 grid. */
  outputs: ['Identity', 'Identity_2', 'Identity_1', 'Identity_3'],
};
