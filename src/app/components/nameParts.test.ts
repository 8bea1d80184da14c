import { describe, expect, it } from 'vitest';
import { nameParts } from './nameParts';

describe('nameParts', () => {
  it('keeps the end of the stem and the extension whole: the part that tells a batch apart', () => {
    expect(nameParts('000000000139.jpg')).toEqual({ head: '000000', tail: '000139.jpg' });
    expect(nameParts('000000000285.jpg').tail).toBe('000285.jpg');
  });

  it('joins back to the whole name', () => {
    for (const name of ['holiday-2024-beach-sunset-final-v2.png', 'IMG_20240611_101010.jpeg', 'scan', 'a.b.c.tiff']) {
      const { head, tail } = nameParts(name);
      expect(head + tail).toBe(name);
    }
  });

  it('does not cut a short name, or a name without extension shorter than the tail', () => {
    expect(nameParts('cup.png')).toEqual({ head: '', tail: 'cup.png' });
    expect(nameParts('coffee.png')).toEqual({ head: '', tail: 'coffee.png' });
    expect(nameParts('scan_00012345')).toEqual({ head: 'scan_00', tail: '012345' });
  });
});
