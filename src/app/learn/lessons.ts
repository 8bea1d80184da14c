/**
 * What the session's objects teach the learned classes (issue 37, item 1), read off the document:
 * an object a person made, accepted or re-classed is a positive of its class, a rejected proposal a
 * negative. Each object's lesson is summed up in a signature, so an object is taught again only when
 * its lesson changes (re-classed, or accepted and later rejected), never on every save.
 *
 * The learned classes know a class by its name: the name is what the CLI, a dataset and a server
 * project share, while class ids are the session's own.
 */
import { isTag, type Annotation, type ClassDef, type ImageEntry } from '../../annotations/annotation';
import { reviewStateOf } from '../../annotations/review';
import type { LabelledRegion } from '../../engine/learn/proposeLearned';
import type { CornerBox } from '../../engine/text/detector';
import { objectMask } from '../geometry/objectMask';
import { classById } from '../state/classOps';
import type { StudioDocument } from '../state/model';

/** The learned model's name of a class. */
export const learnedClassName = (c: Pick<ClassDef, 'name'>) => c.name.trim();

/** The session's class a learned class stands for (by name, ignoring case), if it is still listed. */
export function classNamed(classes: readonly ClassDef[], name: string): ClassDef | undefined {
  const wanted = name.trim().toLowerCase();
  return classes.find((c) => learnedClassName(c).toLowerCase() === wanted);
}

/** `+name` (a positive of that class), `-` (background), or undefined: nothing to teach (a waiting proposal, an unlabelled object, a tag). */
export function teachingSignature(object: Annotation, classes: readonly ClassDef[]): string | undefined {
  if (isTag(object)) return undefined;
  const state = reviewStateOf(object);
  if (state === 'rejected') return '-';
  if (state !== 'accepted') return undefined;
  const named = classById({ classes }, object.classId);
  return named && learnedClassName(named) ? `+${learnedClassName(named)}` : undefined;
}

export interface Lesson {
  readonly image: ImageEntry;
  readonly object: Annotation;
  readonly signature: string;
  /** The class it is an example of; null: background. */
  readonly classId: string | null;
}

/** The objects whose lesson is not taught yet (`taught`: object id → the signature taught). */
export function pendingLessons(doc: Pick<StudioDocument, 'images' | 'objects' | 'classes'>, taught: ReadonlyMap<string, string>): Lesson[] {
  return doc.images.flatMap((image) =>
    (doc.objects[image.id] ?? []).flatMap((object): Lesson[] => {
      const signature = teachingSignature(object, doc.classes);
      if (!signature || taught.get(object.id) === signature) return [];
      return [{ image, object, signature, classId: signature === '-' ? null : signature.slice(1) }];
    }),
  );
}

/** The region the learned model describes for an object: its pixels (a box: the filled box, as the engine describes drawn boxes). */
export const lessonMask = (object: Annotation, image: Pick<ImageEntry, 'width' | 'height'>) => objectMask(object, image.width, image.height);

const cornerBox = ([x, y, w, h]: readonly number[]): CornerBox => ({ x0: x, y0: y, x1: x + w, y1: y + h });

/** The person's objects of a class on an image, as a labelled photo teaches them (lessonsOfLabelledPhoto). */
export function labelledRegions(doc: Pick<StudioDocument, 'objects' | 'classes'>, image: ImageEntry): LabelledRegion[] {
  return (doc.objects[image.id] ?? []).flatMap((object): LabelledRegion[] => {
    const signature = teachingSignature(object, doc.classes);
    if (!signature?.startsWith('+')) return [];
    const classId = signature.slice(1);
    return object.kind === 'box' && object.box ? [{ classId, box: cornerBox(object.box) }] : [{ classId, mask: lessonMask(object, image) }];
  });
}

/** Every lesson the document's objects teach (object id → signature), taught or not; `which` picks the objects. */
export function documentLessons(doc: Pick<StudioDocument, 'images' | 'objects' | 'classes'>, which: (objectId: string) => boolean = () => true): Map<string, string> {
  return new Map(pendingLessons(doc, new Map()).flatMap((l) => (which(l.object.id) ? [[l.object.id, l.signature] as const] : [])));
}
