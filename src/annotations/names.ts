/**
 * Names people give to projects, classes and images end up in XML documents, zip entry names and
 * JSON `file_name`s written by the exports. A control character there (NUL, a line break, a bidi
 * override that shows `gpj.exe` as `exe.jpg`) breaks the document or misleads the reader, and a path
 * in an image name (`../../etc/x.png`) would point an unpacked dataset outside its folder.
 */
import { z } from 'zod';

/** C0 and C1 controls, DEL, and the invisible marks that change how text around them reads. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** Every such character of a text, to drop them (the writers' file names: formats/imported.ts `fileNameOf`). */
export const CONTROL_CHARACTERS = new RegExp(CONTROL.source, 'gu');

export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}

/** A name shown to people and written into exports: no control or direction-changing characters. */
export const DisplayName = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((name) => !hasControlCharacter(name), 'must not contain control characters (U+0000–U+001F, U+007F–U+009F) or direction marks (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069)');

/**
 * An image's file name as exports write it: its last path segment only (`a/b\\c.png` → `c.png`),
 * so no dataset entry can point outside the dataset's folder. Undefined when nothing usable is left.
 */
export function baseFileName(name: string): string | undefined {
  const last = name.split(/[\\/]/).pop()!.trim();
  return last === '' || last === '.' || last === '..' ? undefined : last;
}


/** An image name at upload: control characters refused, directories dropped. */
export const ImageFileName = DisplayName(255)
  .transform((name) => baseFileName(name) ?? '')
  .pipe(z.string().min(1, 'a file name, not only a path to a folder'));
