import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultModelDir } from './adapters/ortNode';
import { DETECTORS, SAM_FILES, samFiles, samManifestEntries, type ModelManifest } from './catalog';

const manifestPath = join(defaultModelDir(), 'manifest.json');

describe('the model catalog', () => {
  it('names every model the provisioning scripts wrote, under the file names the manifest lists', () => {
    expect(existsSync(manifestPath), 'run npm run models').toBe(true);
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as ModelManifest;
    expect(manifest.encoder.file).toBe(SAM_FILES.encoder.fp32);
    expect(manifest.encoderInt8?.file).toBe(SAM_FILES.encoder.int8);
    expect(manifest.decoder.file).toBe(SAM_FILES.decoder.fp32);
    expect(manifest.decoderInt8?.file).toBe(SAM_FILES.decoder.int8);
    expect(manifest.decoderSplit).toMatchObject({ precompute: { file: SAM_FILES.decoderPrecompute }, click: { file: SAM_FILES.decoderClick.fp32 }, clickInt8: { file: SAM_FILES.decoderClick.int8 } });
    for (const detector of DETECTORS) expect(manifest[detector.manifestKey], detector.name).toMatchObject({ file: detector.file });
  });

  it('gives the browser and Node the same SAM files for every choice', () => {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as ModelManifest;
    for (const encoderPrecision of ['fp32', 'int8'] as const)
      for (const decoderPrecision of ['fp32', 'int8'] as const)
        for (const splitDecoder of [true, false]) {
          const choice = { encoderPrecision, decoderPrecision, splitDecoder };
          const browser = samManifestEntries(manifest, choice);
          expect({ encoder: browser.encoder?.file, decoder: browser.decoder?.file, decoderPrecompute: browser.decoderPrecompute?.file }).toEqual({ decoderPrecompute: undefined, ...samFiles(choice) });
        }
  });

  it('names each detector, model and manifest key once', () => {
    for (const key of ['name', 'model', 'manifestKey', 'file'] as const) expect(new Set(DETECTORS.map((d) => d[key])).size).toBe(DETECTORS.length);
  });
});
