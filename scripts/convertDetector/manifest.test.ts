import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { conversionStamp, withDetectorEntry } from '../convertDetector';

const models = join(import.meta.dirname, '..', '..', 'public', 'models');

describe('the detector in manifest.json', () => {
  it('adds the entry and keeps what provisionModels.mjs wrote', () => {
    const manifest = { derivationVersion: 3, encoder: { file: 'sam-encoder.onnx' }, detector: { file: 'old.onnx', size: 1, sha256: 'x' } };
    const entry = { file: 'detector.onnx', size: 8, sha256: 'abc' };
    expect(withDetectorEntry(manifest, entry)).toEqual({ derivationVersion: 3, encoder: { file: 'sam-encoder.onnx' }, detector: entry });
  });

  it('a converted file is stale when its model exposes other outputs, not only when its source changes', () => {
    const source = { sha256: { 'model.json': 'aa', 'weights.bin': 'bb' }, outputs: ['boxes', 'logits'] };
    expect(conversionStamp(source)).toBe(conversionStamp({ ...source, outputs: ['boxes', 'logits'] }));
    expect(conversionStamp(source)).not.toBe(conversionStamp({ ...source, outputs: ['boxes', 'logits', 'features'] }));
    expect(conversionStamp(source)).not.toBe(conversionStamp({ ...source, sha256: { 'model.json': 'aa', 'weights.bin': 'cc' } }));
  });

  it.runIf(existsSync(join(models, 'detector.onnx')))('lists the provisioned detector with its real size and SHA-256 (what the browser verifies)', () => {
    const bytes = readFileSync(join(models, 'detector.onnx'));
    const manifest = JSON.parse(readFileSync(join(models, 'manifest.json'), 'utf8'));
    expect(manifest.detector).toEqual({ file: 'detector.onnx', size: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') });
  });
});
