import { describe, expect, it } from 'vitest';
import type { ClassDef } from '../../annotations/annotation';
import { matchClasses } from './classMatch';

const classes: ClassDef[] = ['cup', 'wine glass', 'Cat', 'bottle', 'scuttle', 'dining_table', 'cupboard'].map((name, i) => ({ id: i + 1, name, color: '#fff' }));
const names = (typed: string) => matchClasses(classes, typed).classes.map((c) => c.name);

describe('class type-ahead', () => {
  it('ranks the whole name, then prefixes, then later words, then substrings; case and spaces do not matter', () => {
    expect(names('cup')).toEqual(['cup', 'cupboard']);
    expect(names('CA')).toEqual(['Cat']);
    expect(names('t')).toEqual(['dining_table', 'Cat', 'bottle', 'scuttle']);
    expect(names('glass')).toEqual(['wine glass']);
    expect(names('tab')).toEqual(['dining_table']);
    expect(names('  wine   gl ')).toEqual(['wine glass']);
    expect(names('ttl')).toEqual(['bottle', 'scuttle']);
  });

  it('reaches every class, not only the first nine; nothing typed lists them all', () => {
    const many: ClassDef[] = Array.from({ length: 40 }, (_, i) => ({ id: i + 1, name: `class ${i + 1}`, color: '#fff' }));
    expect(matchClasses(many, 'class 37').classes.map((c) => c.id)).toEqual([37]);
    expect(matchClasses(many, '').classes).toHaveLength(40);
  });

  it('offers to create a name no class has, in any case, and not one that exists', () => {
    expect(matchClasses(classes, '  saucer ').newName).toBe('saucer');
    expect(matchClasses(classes, 'saucer').classes).toEqual([]);
    expect(matchClasses(classes, 'cupb').newName).toBe('cupb');
    expect(matchClasses(classes, 'CAT').newName).toBeNull();
    expect(matchClasses(classes, '').newName).toBeNull();
  });
});
