import { stepImage } from './stepImage';
import type { Command } from './command';

export const nextImageCommand: Command = {
  id: 'next-image',
  label: 'Next image',
  keys: [{ key: 'd' }, { key: 'PageDown' }],
  perform: () => stepImage(1),
};
