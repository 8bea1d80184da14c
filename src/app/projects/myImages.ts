/**
 * "My images" first: the photos the owner assigned to this person lead the list, each group in the
 * project's own order, so an annotator starts with their share of the work.
 */
type Assignable = { readonly assignee?: string | null };

export const isAssignedTo = (image: Assignable, me: string | null): boolean => !!me && image.assignee?.toLowerCase() === me.toLowerCase();

export function myImagesFirst<T extends Assignable>(images: readonly T[], me: string | null): T[] {
  const mine = (image: T) => isAssignedTo(image, me);
  return [...images.filter(mine), ...images.filter((image) => !mine(image))];
}
