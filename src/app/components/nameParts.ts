/**
 * A file name cut in two for a middle ellipsis: the head gives way (the CSS ellipsis) and the tail
 * always shows. Photos of one batch often share their start ("000000000139.jpg",
 * "000000000285.jpg"), so what tells them apart is the end of the stem, kept here with the extension.
 */
export function nameParts(name: string, stemTail = 6): { head: string; tail: string } {
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && name.length - dot <= 6 ? name.slice(dot) : '';
  const keep = Math.min(name.length, extension.length + stemTail);
  // Nothing to gain from a cut when the head would be a few characters.
  if (name.length - keep < 4) return { head: '', tail: name };
  return { head: name.slice(0, name.length - keep), tail: name.slice(name.length - keep) };
}
