import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { truncationProblem } from './imageIntegrity';

const jpeg = new Uint8Array(readFileSync('public/samples/rocket.jpg'));
const png = new Uint8Array(readFileSync('public/samples/coffee.png'));

describe('truncated images', () => {
  it('accepts whole JPEG and PNG files', () => {
    expect(truncationProblem(jpeg)).toBeNull();
    expect(truncationProblem(png)).toBeNull();
  });

  it('refuses a JPEG or PNG cut short, and says which format', () => {
    expect(truncationProblem(jpeg.subarray(0, Math.floor(jpeg.length * 0.6)))).toMatch(/JPEG is truncated/);
    expect(truncationProblem(png.subarray(0, png.length - 12))).toMatch(/PNG is truncated/);
  });

  it('leaves formats it does not know to the browser', () => {
    expect(truncationProblem(new TextEncoder().encode('GIF89a....'))).toBeNull();
  });
});
