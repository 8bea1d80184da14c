import { create } from 'zustand';
import type { BoxPrompt, PointPrompt } from '../../engine/types';
import * as ops from './documentOps';
import { commit, createHistory, redo, settle, undo, type History } from './history';
import { emptyDocument, type Candidate, type StudioDocument } from './model';
import { remoteImageAdded, remoteImageRemoved, remoteObjectsChange } from './remoteChange';
import { type ImageEntry, type ObjectReview, type Annotation } from '../../annotations/annotation';

/**
 * The one store of the document. Every user change is a `commit` (one undo step); async results
 * (predictions) arrive through `settle`, which patches the snapshots waiting for them.
 */
let revisionCounter = Date.now();
export const nextRevision = () => ++revisionCounter;
let idCounter = 0;
export const newId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(idCounter++).toString(36)}`;

interface StudioState {
  history: History<StudioDocument>;
  /** Replaces everything (session restore). Not undoable. */
  load(doc: StudioDocument): void;
  apply(label: string, change: (doc: StudioDocument) => StudioDocument): void;
  settle(change: (doc: StudioDocument) => StudioDocument): void;
  undo(): void;
  redo(): void;
}

export const useStudio = create<StudioState>((set) => ({
  history: createHistory(emptyDocument()),
  load: (doc) => set({ history: createHistory(doc) }),
  apply: (label, change) => set((s) => ({ history: commit(s.history, change(s.history.present), label) })),
  settle: (change) => set((s) => ({ history: settle(s.history, change) })),
  undo: () => set((s) => ({ history: undo(s.history) })),
  redo: () => set((s) => ({ history: redo(s.history) })),
}));

export const currentDocument = () => useStudio.getState().history.present;

/** Named user actions, so components and shortcuts never build documents themselves. */
export const studio = {
  addImage: (image: ImageEntry, how?: { show?: boolean }) => useStudio.getState().apply(`open ${image.name}`, (d) => ops.addImage(d, image, how)),
  removeImage: (imageId: string) => useStudio.getState().apply('close image', (d) => ops.removeImage(d, imageId)),
  setActiveImage: (imageId: string) => useStudio.getState().apply('switch image', (d) => ops.setActiveImage(d, imageId)),
  addPoint: (imageId: string, point: PointPrompt) => {
    const revision = nextRevision();
    useStudio.getState().apply(point.positive === false ? 'negative point' : 'positive point', (d) => ops.addPoint(d, imageId, point, revision));
    return revision;
  },
  setBox: (imageId: string, box: BoxPrompt | null) => {
    const revision = nextRevision();
    useStudio.getState().apply(box ? 'box' : 'remove box', (d) => ops.setBox(d, imageId, box, revision));
    return revision;
  },
  clearPrompt: (imageId: string) => useStudio.getState().apply('clear prompt', (d) => ops.clearPrompt(d, imageId, nextRevision())),
  selectCandidate: (imageId: string, index: number) => useStudio.getState().apply('pick candidate', (d) => ops.selectCandidate(d, imageId, index)),
  acceptCandidate: (imageId: string, label?: string) => useStudio.getState().apply('accept object', (d) => ops.acceptCandidate(d, imageId, newId('obj'), nextRevision(), label)),
  /** Several objects at once (text prompt, find similar): one undo step removes all of them. */
  addObjects: (imageId: string, objects: ReadonlyArray<Omit<Annotation, 'color' | 'id'>>, action = `add ${objects.length} objects`) =>
    useStudio.getState().apply(action, (d) => ops.addObjects(d, imageId, objects.map((o) => ({ ...o, id: newId('obj') })))),
  renameObject: (imageId: string, objectId: string, label: string) => useStudio.getState().apply('rename', (d) => ops.updateObject(d, imageId, objectId, { label })),
  setVisible: (imageId: string, objectId: string, visible: boolean) =>
    useStudio.getState().apply(visible ? 'show object' : 'hide object', (d) => ops.updateObject(d, imageId, objectId, { visible })),
  setColor: (imageId: string, objectId: string, color: string) => useStudio.getState().apply('recolor', (d) => ops.updateObject(d, imageId, objectId, { color })),
  /** A reviewer's verdict on any object of a shared project (what proposed it is kept). */
  setReview: (imageId: string, objectId: string, review: ObjectReview) =>
    useStudio.getState().apply(`mark ${review.state}`, (d) => ops.updateObject(d, imageId, objectId, { review })),
  deleteObject: (imageId: string, objectId: string) => useStudio.getState().apply('delete object', (d) => ops.deleteObject(d, imageId, objectId)),
  markPending: (imageId: string, revision: number, status: 'pending' | 'waiting', message: string | null = null) =>
    useStudio.getState().settle((d) => ops.markPending(d, imageId, revision, status, message)),
  resolve: (imageId: string, revision: number, candidates: readonly Candidate[], emptyMessage?: string) =>
    useStudio.getState().settle((d) => ops.applyCandidates(d, imageId, revision, candidates, emptyMessage)),
  applyMirrorPass: (imageId: string, revision: number, basis: readonly Candidate[], candidates: readonly Candidate[]) =>
    useStudio.getState().settle((d) => ops.applyMirrorPass(d, imageId, revision, basis, candidates)),
  fail: (imageId: string, revision: number, message: string) => useStudio.getState().settle((d) => ops.applyFailure(d, imageId, revision, message)),
  /** Other members' changes of a shared project: applied to the whole history, never an undo step here (remoteChange.ts). */
  mergeRemoteObjects: (imageId: string, objects: readonly Annotation[]) => {
    const { settle, history } = useStudio.getState();
    settle(remoteObjectsChange(imageId, history.present.objects[imageId] ?? [], objects));
  },
  addRemoteImage: (image: ImageEntry) => useStudio.getState().settle(remoteImageAdded(image)),
  removeRemoteImage: (imageId: string) => useStudio.getState().settle(remoteImageRemoved(imageId)),
  undo: () => useStudio.getState().undo(),
  redo: () => useStudio.getState().redo(),
};
