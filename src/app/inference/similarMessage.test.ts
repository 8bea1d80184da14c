import { describe, expect, it } from 'vitest';
import { similarMessage } from './similarMessage';

describe('similarMessage', () => {
  it('says what was added and how many candidates were rejected or already there', () => {
    expect(similarMessage('donut', { added: 2, rejected: 3, duplicates: 1 })).toBe(
      '2 similar objects added (Undo removes them). 3 candidates rejected: not like the example; 1 already on the image.',
    );
    expect(similarMessage('hand', { added: 0, rejected: 1, duplicates: 0 })).toBe('No similar objects found for “hand”. 1 candidate rejected: not like the example.');
    expect(similarMessage('cup', { added: 1, rejected: 0, duplicates: 0 })).toBe('1 similar object added (Undo removes it).');
  });
});
