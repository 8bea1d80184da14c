/**
 * A project's learned model (issues 37 item 6 and 38 item 1): the learned classes the studio teaches
 * (src/engine/learn/learnedClasses.ts, its `toJSON`), kept on the server so every member's studio and
 * the server's `learned` jobs share one. Vectors and weights only, never photos: an example is a
 * region descriptor, a list of numbers, written in half precision (`packedExamples`).
 */
import { z } from 'zod';
import { DESCRIPTOR_KINDS } from '../engine/learn/descriptors';
import { LEARNED_CLASSES_VERSION } from '../engine/learn/learnedClasses';
import { base64Bytes } from '../engine/learn/packedExamples';
import { SHOWN_CALIBRATION_METHODS } from '../engine/learn/shownCalibration';

/** The largest model the server stores (the PUT body): `LEARNED_MODEL_MAX_BYTES` may change it. */
export const DEFAULT_LEARNED_MODEL_MAX_BYTES = 32 * 1024 * 1024;

const finite = z.number().finite();
const vector = z.array(finite);

/** What `LearnedClasses.toJSON()` writes, checked as far as a classifier can be used: every table the size of the others. */
export const LearnedModelState = z
  .object({
    version: z.literal(LEARNED_CLASSES_VERSION),
    kinds: z.array(z.enum(DESCRIPTOR_KINDS as [string, ...string[]])).min(1),
    classes: z.array(z.string().max(200)).min(1).describe("Class ids in the model's order; index 0 is the background ('')."),
    examples: z.array(z.object({ x: vector, c: z.number().int().nonnegative() })),
    packedExamples: z
      .object({
        features: z.number().int().nonnegative(),
        classes: z.array(z.number().int().nonnegative()),
        float16: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/).refine((t) => t.length % 4 === 0, 'is not padded Base64'),
        keys: z.array(z.string().max(200)).optional().describe("What each example was taught from (the studio's object id; '' for none)."),
      })
      .optional()
      .describe('The examples as half-precision vectors, row after row, little-endian, Base64 (absent in models written before it: they hold `examples`).'),
    weights: z.array(vector),
    mean: vector,
    scale: vector,
    decisions: z.record(z.string(), z.array(z.object({ raw: finite.min(0).max(1), correct: z.boolean(), evidence: finite.min(0).max(1).optional() }))),
    steps: z.number().int().nonnegative(),
    settings: z.object({
      l2: finite.nonnegative(),
      learningRate: finite.positive(),
      batchSize: z.number().int().positive(),
      stepWork: finite.positive(),
      maxBackground: z.number().int().positive(),
      maxPerClass: z.number().int().positive(),
      maxDecisions: z.number().int().positive(),
    }),
    optimiser: z.object({ m: z.array(vector), v: z.array(vector), t: z.number().int().nonnegative(), seed: z.number().int() }),
    ranker: z
      .object({ weights: vector, outcomes: z.array(z.object({ x: vector, correct: z.boolean() })) })
      .optional()
      .describe('The overlap ranker learned from what became of earlier proposals (absent in models written before it).'),
    shown: z
      .object({
        method: z.enum(SHOWN_CALIBRATION_METHODS),
        displayMethod: z.enum(SHOWN_CALIBRATION_METHODS).optional(),
        outcomes: z.array(z.object({ x: vector, correct: z.boolean(), heldOutScore: z.number().min(0).max(1).optional(), classId: z.string().optional(), heldOutRanking: z.number().min(0).max(1).optional() })),
      })
      .optional()
      .describe("The shown probability's calibration: the person's decisions on shown proposals, with the ranker's features of each (absent in models written before it)."),
    naming: z
      .object({
        records: z.array(
          z.object({
            classes: z.number().int().positive(),
            c: z.number().int().positive(),
            entries: z.array(z.tuple([z.number().int().positive(), finite, finite])),
          }),
        ),
      })
      .optional()
      .describe("What the `blend` head's weights are fitted on: the person's labelled objects as the nearest examples and the detectors scored them (absent in models written before it)."),
  })
  .superRefine((state, ctx) => {
    const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    const features = state.mean.length;
    if (state.scale.length !== features) issue(['scale'], `has ${state.scale.length} entries, mean ${features}`);
    if (state.weights.length !== 0 && state.weights.length !== state.classes.length) issue(['weights'], `has ${state.weights.length} rows for ${state.classes.length} classes`);
    const row = state.weights.findIndex((w) => w.length !== features + 1);
    if (row >= 0) issue(['weights', row], `has ${state.weights[row].length} entries, not ${features + 1} (features and bias)`);
    const example = state.examples.findIndex((e) => (features > 0 && e.x.length !== features) || e.c >= state.classes.length);
    if (example >= 0) issue(['examples', example], 'does not fit the model: its length is not the features\', or its class is not one of `classes`');
    for (const moment of ['m', 'v'] as const) {
      const rows = state.optimiser[moment];
      if (rows.length !== state.weights.length || rows.some((r) => r.length !== features + 1)) issue(['optimiser', moment], 'is not the shape of `weights`');
    }
    const packed = state.packedExamples;
    if (packed && packed.classes.length > 0 && features > 0 && packed.features !== features) issue(['packedExamples', 'features'], `is ${packed.features}, the model's features ${features}`);
    if (packed && base64Bytes(packed.float16) !== packed.classes.length * packed.features * 2) issue(['packedExamples', 'float16'], `does not hold ${packed.classes.length} × ${packed.features} halves`);
    if (packed?.keys && packed.keys.length !== packed.classes.length) issue(['packedExamples', 'keys'], `has ${packed.keys.length} keys for ${packed.classes.length} examples`);
    if (packed && packed.classes.some((c) => c >= state.classes.length)) issue(['packedExamples', 'classes'], 'names a class that is not one of `classes`');
    const record = state.naming?.records.findIndex((r) => r.classes > state.classes.length || r.c >= r.classes || r.entries.some(([k]) => k >= r.classes)) ?? -1;
    if (record >= 0) issue(['naming', 'records', record], 'names a class that is not one of `classes`');
    const ranker = state.ranker;
    if (ranker && ranker.outcomes.some((o) => o.x.length !== ranker.weights.length)) issue(['ranker', 'outcomes'], 'an outcome is not the length of the ranker\'s weights');
    const shown = state.shown;
    if (ranker && shown && shown.outcomes.some((o) => o.x.length !== ranker.weights.length)) issue(['shown', 'outcomes'], 'an outcome is not the length of the ranker\'s weights');
    if (state.weights.length > 0 && state.classes[0] !== '') issue(['classes', 0], "must be the background ('')");
  });

export const LearnedModel = z.object({
  revision: z.number().int().positive().describe('Counts the writes; send it back (body or `If-Match`) to replace the model.'),
  model: LearnedModelState,
  classes: z.array(z.string()).describe("The classes the model knows (its `classes` without the background): the project's class ids, as the studio teaches them."),
  updatedBy: z.string().nullable(),
  updatedAt: z.string(),
});
export type LearnedModel = z.infer<typeof LearnedModel>;

export const PutLearnedModelRequest = z.object({
  revision: z
    .number()
    .int()
    .nonnegative()
    .max(2_147_483_646)
    .optional()
    .describe('The revision the model was learned on (0: the project has none yet); or send `If-Match: "<revision>"`.'),
  model: LearnedModelState,
});
export type PutLearnedModelRequest = z.infer<typeof PutLearnedModelRequest>;

/**
 * What a `learned` job's inference gives for one image (stored with the call, as any metered answer):
 * proposals of the learned classes, best first. `source` says who found the object: segment
 * everything's proposal classified by the learned model, or a detector that knows the class's name.
 */
export const LearnedProposals = z.object({
  predictions: z.array(
    z.object({
      classId: z.string(),
      confidence: z.number().min(0).max(1),
      source: z.enum(['learned', 'detector']),
      masks: z.array(z.array(z.tuple([finite, finite]))),
    }),
  ),
});
export type LearnedProposals = z.infer<typeof LearnedProposals>;
