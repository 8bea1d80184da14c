import { describe, expect, it } from 'vitest';
import { FORMATS } from '../../../annotations/formats/registry';
import { EXPORT_FORMATS } from '../../../contract/projects';
import { exportFormat } from './datasetExport';

describe('project export formats', () => {
  it('are exactly the studio registry, each written by the registry itself', () => {
    expect([...EXPORT_FORMATS].sort()).toEqual(FORMATS.filter((f) => !f.requiresImages).map((f) => f.id).sort());
    for (const id of EXPORT_FORMATS) expect(FORMATS).toContain(exportFormat(id));
  });
});
