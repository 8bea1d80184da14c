import { describe, expect, it } from 'vitest';
import { BULK_EVERYTHING_RULE } from '../engine/everything/segmentEverything';
import { parseLabelArgs } from './label';

const required = ['--images', 'photos', '--examples', 'labelled.coco.json', '--out', 'proposals.coco.json'];

describe('cli label: which segment-everything rule finds the candidates', () => {
  it('a folder is bulk work: the bulk rule unless --rule says otherwise', () => {
    expect(parseLabelArgs(required).rule).toBe(BULK_EVERYTHING_RULE);
    expect(BULK_EVERYTHING_RULE).toBe('thorough');
    expect(parseLabelArgs([...required, '--rule', 'objects']).rule).toBe('objects');
  });
});
