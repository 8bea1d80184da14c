import type { BoxPrompt, PointPrompt } from '../../engine/types';
import { ensureClassNamed } from './classOps';
import { colorForIndex, type ImageEntry, type Annotation } from '../../annotations/annotation';
import { withoutBox } from './boxOps';
import { emptyPrompt, type Candidate, type PromptState, type StudioDocument } from './model';

/** Pure document changes. Each returns a new document (or the same one when nothing changes). */

/**
 * `show: false` adds the image behind the one on screen: a batch of photos opens on its first one,
 * and the rest of the batch must not take the screen (and the encoder's first turn) from it.
 */
export function addImage(doc: StudioDocument, image: ImageEntry, { show = true }: { show?: boolean } = {}): StudioDocument {
  const activeImageId = show || doc.activeImageId === null ? image.id : doc.activeImageId;
  if (doc.images.some((i) => i.id === image.id)) return { ...doc, activeImageId };
  return {
    ...doc,
    images: [...doc.images, image],
    activeImageId,
    objects: { ...doc.objects, [image.id]: [] },
    prompts: { ...doc.prompts, [image.id]: emptyPrompt() },
  };
}

export function removeImage(doc: StudioDocument, imageId: string): StudioDocument {
  const images = doc.images.filter((i) => i.id !== imageId);
  if (images.length === doc.images.length) return doc;
  const { [imageId]: _objects, ...objects } = doc.objects;
  const { [imageId]: _prompt, ...prompts } = doc.prompts;
  const activeImageId = doc.activeImageId === imageId ? (images[images.length - 1]?.id ?? null) : doc.activeImageId;
  return { ...doc, images, objects, prompts, activeImageId };
}

export function setActiveImage(doc: StudioDocument, imageId: string): StudioDocument {
  if (doc.activeImageId === imageId || !doc.images.some((i) => i.id === imageId)) return doc;
  return { ...doc, activeImageId: imageId };
}

export function promptOf(doc: StudioDocument, imageId: string): PromptState {
  return doc.prompts[imageId] ?? emptyPrompt();
}

function withPrompt(doc: StudioDocument, imageId: string, prompt: PromptState): StudioDocument {
  return { ...doc, prompts: { ...doc.prompts, [imageId]: prompt } };
}

/** A new prompt revision: earlier answers no longer apply, so candidates are cleared. */
function revise(prompt: PromptState, revision: number, change: Partial<PromptState>): PromptState {
  return { ...prompt, ...change, revision, candidates: [], selected: 0, status: 'idle', message: null, mirrorPassed: false };
}

export function addPoint(doc: StudioDocument, imageId: string, point: PointPrompt, revision: number): StudioDocument {
  const prompt = promptOf(doc, imageId);
  return withPrompt(doc, imageId, revise(prompt, revision, { points: [...prompt.points, point] }));
}

export function setBox(doc: StudioDocument, imageId: string, box: BoxPrompt | null, revision: number): StudioDocument {
  return withPrompt(doc, imageId, revise(promptOf(doc, imageId), revision, { box }));
}

export function clearPrompt(doc: StudioDocument, imageId: string, revision: number): StudioDocument {
  const prompt = promptOf(doc, imageId);
  if (prompt.points.length === 0 && !prompt.box && prompt.candidates.length === 0) return doc;
  return withPrompt(doc, imageId, emptyPrompt(revision));
}

/** Marks the prompt as asked (not an undo step; applied with history.settle). */
export function markPending(doc: StudioDocument, imageId: string, revision: number, status: 'pending' | 'waiting', message: string | null = null): StudioDocument {
  const prompt = doc.prompts[imageId];
  if (!prompt || prompt.revision !== revision) return doc;
  if (prompt.status === status && prompt.message === message) return doc;
  return withPrompt(doc, imageId, { ...prompt, status, message });
}

/** `emptyMessage`: what an answer without any mask says (a paid call adds whether its credit came back). */
export function applyCandidates(
  doc: StudioDocument,
  imageId: string,
  revision: number,
  candidates: readonly Candidate[],
  emptyMessage = 'No mask found for this prompt.',
): StudioDocument {
  const prompt = doc.prompts[imageId];
  if (!prompt || prompt.revision !== revision || prompt.status === 'done') return doc;
  return withPrompt(doc, imageId, { ...prompt, candidates, selected: ANSWER, status: 'done', message: candidates.length ? null : emptyMessage, mirrorPassed: false });
}

/**
 * The candidate an answer selects: the first. The engine (local or behind the API) lists its
 * single-mask answer first, chosen by predicted IoU and stability and by the kind of prompt
 * (candidates.ts), so selecting the highest predicted IoU instead would step off the rule the clicks
 * were measured with.
 */
const ANSWER = 0;

/**
 * The mirror pass's answer to the prompt replaces the one it was asked for (not an undo step: the
 * same prompt, answered better) — only while the prompt still shows exactly `basis`, with the
 * candidate the answer chose still selected, so neither a newer edit nor the user's own pick is undone.
 */
export function applyMirrorPass(
  doc: StudioDocument,
  imageId: string,
  revision: number,
  basis: readonly Candidate[],
  candidates: readonly Candidate[],
): StudioDocument {
  const prompt = doc.prompts[imageId];
  if (!prompt || prompt.revision !== revision || prompt.status !== 'done' || prompt.candidates !== basis) return doc;
  if (candidates.length === 0 || prompt.selected !== ANSWER) return doc;
  return withPrompt(doc, imageId, { ...prompt, candidates, selected: ANSWER, mirrorPassed: true });
}

export function applyFailure(doc: StudioDocument, imageId: string, revision: number, message: string): StudioDocument {
  const prompt = doc.prompts[imageId];
  if (!prompt || prompt.revision !== revision || prompt.status === 'done') return doc;
  return withPrompt(doc, imageId, { ...prompt, status: 'error', message });
}

export function selectCandidate(doc: StudioDocument, imageId: string, index: number): StudioDocument {
  const prompt = doc.prompts[imageId];
  if (!prompt || index < 0 || index >= prompt.candidates.length || prompt.selected === index) return doc;
  return withPrompt(doc, imageId, { ...prompt, selected: index });
}

export function nextObjectLabel(objects: readonly Annotation[]): string {
  return `object ${objects.length + 1}`;
}

/**
 * Turns the selected candidate into an object (of the current class) and starts a fresh prompt.
 * While an object is being refined, the candidate replaces that object instead (same id, class, colour).
 */
export function acceptCandidate(doc: StudioDocument, imageId: string, objectId: string, revision: number, label?: string): StudioDocument {
  const prompt = doc.prompts[imageId];
  const candidate = prompt?.candidates[prompt.selected];
  if (!candidate) return doc;
  const objects = doc.objects[imageId] ?? [];
  const shape = {
    confidence: candidate.score,
    polygons: candidate.polygons,
    mask: candidate.mask,
    outlineTolerance: candidate.outlineTolerance,
    source: candidate.receipt ? ('remote' as const) : ('local' as const),
    receipt: candidate.receipt,
    prompt: { points: prompt.points, box: prompt.box },
    lowResLogits: candidate.lowResLogits,
  };
  const target = prompt.targetObjectId ? objects.find((o) => o.id === prompt.targetObjectId) : undefined;
  // A refined proposal is a person's answer: it is accepted with its new shape.
  const next = target
    ? objects.map((o) => (o === target ? { ...withoutBox(o), ...shape, review: o.review && { ...o.review, state: 'accepted' as const } } : o))
    : [...objects, { id: objectId, label: label?.trim() || nextObjectLabel(objects), classId: doc.activeClassId, color: colorForIndex(objects.length), visible: true, ...shape }];
  return {
    ...doc,
    objects: { ...doc.objects, [imageId]: next },
    prompts: { ...doc.prompts, [imageId]: emptyPrompt(revision) },
  };
}

/**
 * Several objects at once (text prompt, find similar). An object that comes without a class takes
 * the class of its label's name, created when missing (a text prompt "cup" lands in class "cup").
 */
export function addObjects(doc: StudioDocument, imageId: string, incoming: ReadonlyArray<Omit<Annotation, 'color'>>): StudioDocument {
  if (incoming.length === 0) return doc;
  const objects = doc.objects[imageId] ?? [];
  let next = doc;
  const added = incoming.map((o, i) => {
    let classId = o.classId;
    if (classId === undefined) ({ doc: next, classId } = ensureClassNamed(next, o.label));
    return { ...o, classId, color: colorForIndex(objects.length + i) };
  });
  return { ...next, objects: { ...next.objects, [imageId]: [...objects, ...added] } };
}

export function updateObject(doc: StudioDocument, imageId: string, objectId: string, change: Partial<Pick<Annotation, 'label' | 'visible' | 'color' | 'review'>>): StudioDocument {
  const objects = doc.objects[imageId];
  const target = objects?.find((o) => o.id === objectId);
  if (!objects || !target) return doc;
  const changed = Object.entries(change).some(([k, v]) => target[k as keyof Annotation] !== v);
  if (!changed) return doc;
  return { ...doc, objects: { ...doc.objects, [imageId]: objects.map((o) => (o.id === objectId ? { ...o, ...change } : o)) } };
}

/** An image's objects replaced as a whole (a merge with a shared project's server copy). */
export function setObjects(doc: StudioDocument, imageId: string, objects: readonly Annotation[]): StudioDocument {
  return { ...doc, objects: { ...doc.objects, [imageId]: objects } };
}

export function deleteObject(doc: StudioDocument, imageId: string, objectId: string): StudioDocument {
  const objects = doc.objects[imageId];
  if (!objects?.some((o) => o.id === objectId)) return doc;
  return { ...doc, objects: { ...doc.objects, [imageId]: objects.filter((o) => o.id !== objectId) } };
}
