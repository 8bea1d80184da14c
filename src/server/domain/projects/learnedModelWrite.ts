/**
 * The heavy half of writing a project's learned model, free of the database so that it runs in a
 * worker thread (exports/projectWorker.ts) when the body is large: a model at the classifier's
 * capacity is tens of MiB of numbers, and parsing and validating it takes the better part of a
 * second, which the event loop must not spend while other requests wait.
 */
import { PutLearnedModelRequest } from '../../../contract/learned';
import { parseBody } from '../../http/validation';
import { DomainError } from '../errors';
import { revisionedBody } from './revisionedBody';

export interface LearnedModelWriteInput {
  /** The request body as sent (JSON text). */
  rawBody: string;
  /** `If-Match: "<revision>"`, used when the body names no revision. */
  ifMatchRevision?: number;
}

export interface PreparedLearnedModel {
  /** The revision the model was learned on (0: the project had none). */
  revision: number;
  /** The model as stored (JSON text, what GET sends as it is). */
  modelJson: string;
  /** The model without its examples: all a job classifies with, a small part of its size. */
  classifierJson: string;
  /** The class ids it knows (without the background). */
  classes: string[];
}

export function prepareLearnedModelWrite(input: LearnedModelWriteInput): PreparedLearnedModel {
  const { revision, model } = parseBody(PutLearnedModelRequest, revisionedBody(input.rawBody, input.ifMatchRevision));
  if (revision === undefined) {
    throw new DomainError('validation-failed', 'name the revision the model was learned on: body `revision` (0 for a project without a model) or `If-Match: "<revision>"`', {
      errors: [{ path: 'revision', message: 'required (or If-Match)' }],
    });
  }
  return { revision, modelJson: JSON.stringify(model), classifierJson: JSON.stringify({ ...model, examples: [], packedExamples: undefined }), classes: model.classes.slice(1) };
}
