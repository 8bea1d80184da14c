import { stepImage } from './stepImage';
import type { Command } from './command';

export const previousImageCommand: Command = {
  id: 'previous-image',
  label: 'Previous image',
  keys: [{ key: 'a' }, { key: 'PageUp' }],
  perform: () => stepImage(-1),
};
