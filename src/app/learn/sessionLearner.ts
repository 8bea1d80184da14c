/**
 * The studio's learned classes (issue 37, items 1 and 6, session side): one LearnedClasses per
 * session, taught by the document's objects (lessons.ts) a moment after the person stops, so a
 * click's mask never waits for learning: the descriptors come from the engine worker in one call
 * per photo, and the learning step itself is a few milliseconds of plain arithmetic.
 *
 * Proposals this session made from the learned classes ("Label all like my labels") are remembered
 * with their descriptors and how they sat against the photo's other proposals (the overlap ranker's
 * relation): while they wait, their class and confidence follow the model as it learns; once decided,
 * the decision is recorded for calibration (the probability it was shown with, and whether the class
 * was right) and as the ranker's outcome (accepted as proposed, or not: a part, a second copy, another
 * class), and the proposal never changes again.
 *
 * `learnedModel()` / `setLearnedModel()` carry the whole state as JSON (vectors and weights, never
 * photos): the session's storage keeps it, and a server project can carry it.
 */
import type { ImageEntry } from '../../annotations/annotation';
import { reviewStateOf } from '../../annotations/review';
import type { RegionDescriptor } from '../../engine/learn/descriptors';
import { LearnedClasses, type LearnedClassesState } from '../../engine/learn/learnedClasses';
import type { RelationFeatures } from '../../engine/learn/overlapRanker';
import { bestGuess, lessonsOfLabelledPhoto, type Candidate, type LearnedProposal } from '../../engine/learn/proposeLearned';
import type { BinaryMask } from '../../engine/types';
import type { StudioDocument } from '../state/model';
import { classNamed, documentLessons, labelledRegions, lessonMask, pendingLessons, type Lesson } from './lessons';

export const LEARNED_MODEL_VERSION = 1;

/** What the session keeps of its learned classes. */
export interface LearnedModelState {
  readonly version: number;
  readonly model: LearnedClassesState;
  /** Object id → the lesson taught from it (lessons.ts signature). */
  readonly taught: readonly (readonly [string, string])[];
  /** Photos whose other regions were taught as background ("Label all like my labels"). */
  readonly mined: readonly string[];
}

export interface LearnerPorts {
  document(): Pick<StudioDocument, 'images' | 'objects' | 'classes'>;
  /** Descriptors of masks on a photo (the engine's describeRegions). */
  describe(imageId: string, masks: readonly BinaryMask[]): Promise<RegionDescriptor[]>;
  /** A waiting proposal's new class and confidence, not an undo step. */
  reclass(imageId: string, objectId: string, change: { classId: number; label: string; confidence: number }): void;
  /** The learned state changed (to be saved). */
  changed?(): void;
}

/** A proposal of the learned classes still followed: what it was shown with. */
interface Followed {
  readonly imageId: string;
  readonly candidate: Candidate;
  readonly descriptor: RegionDescriptor;
  classId: string;
  raw: number;
  evidence?: number;
  source: string;
  relation: RelationFeatures;
}

/** The person pauses this long before the learner asks the engine for descriptors. */
export const LEARN_DELAY_MS = 600;

export class SessionLearner {
  private model = new LearnedClasses();
  private taught = new Map<string, string>();
  private mined = new Set<string>();
  private followed = new Map<string, Followed>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> = Promise.resolve();
  /** Milliseconds of each learning step (the model's arithmetic, not the descriptors): the benchmark reads them. */
  readonly stepMs: number[] = [];

  constructor(
    private readonly ports: LearnerPorts,
    private readonly delayMs = LEARN_DELAY_MS,
  ) {}

  get classifier(): LearnedClasses {
    return this.model;
  }

  /** The learned classes that have examples. */
  taughtClasses(): string[] {
    return this.model.classIds.filter((c) => this.model.examplesOf(c) > 0);
  }

  /** Learns from the document a moment after the last change (the next change postpones it). */
  schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.learnPending().catch(() => undefined), this.delayMs);
  }

  /** Learns every lesson not taught yet, now (after any pass under way). */
  learnPending(): Promise<void> {
    clearTimeout(this.timer);
    this.running = this.running.catch(() => undefined).then(() => this.pass());
    return this.running;
  }

  private async pass(): Promise<void> {
    const doc = this.ports.document();
    const unteached = this.unteach(doc);
    const lessons = pendingLessons(doc, this.taught);
    if (lessons.length === 0) {
      if (unteached) {
        this.refreshWaiting();
        this.ports.changed?.();
      }
      return;
    }
    const byImage = new Map<string, Lesson[]>();
    for (const lesson of lessons) byImage.set(lesson.image.id, [...(byImage.get(lesson.image.id) ?? []), lesson]);
    for (const group of byImage.values()) {
      const image = group[0].image;
      const unknown = group.filter((l) => !this.followed.has(l.object.id));
      const described = unknown.length ? await this.ports.describe(image.id, unknown.map((l) => lessonMask(l.object, image))) : [];
      const descriptorOf = new Map(unknown.map((l, i) => [l.object.id, described[i]]));
      // Keyed by the object: its lesson changed again (re-classed, rejected after all) replaces the one taught.
      const examples = group.map((l) => ({ descriptor: this.followed.get(l.object.id)?.descriptor ?? descriptorOf.get(l.object.id)!, classId: l.classId, key: l.object.id }));
      const outcomes = group.flatMap((l) => this.recordDecision(l));
      this.timed(() => {
        this.model.learnAll(examples);
        if (outcomes.length) this.model.recordProposalOutcomes(outcomes);
      });
      for (const l of group) this.taught.set(l.object.id, l.signature);
    }
    this.refreshWaiting();
    this.ports.changed?.();
  }

  /**
   * The objects taught from that teach nothing now (undone, deleted, back to waiting) take their
   * lessons with them. True when the model changed.
   */
  private unteach(doc: ReturnType<LearnerPorts['document']>): boolean {
    const teaching = documentLessons(doc);
    const gone = [...this.taught.keys()].filter((id) => !teaching.has(id));
    if (gone.length === 0) return false;
    for (const id of gone) this.taught.delete(id);
    let changed = false;
    this.timed(() => (changed = this.model.unlearn(gone)));
    return changed;
  }

  /**
   * A followed proposal was decided: the calibration learns whether it was right as proposed, and the
   * overlap ranker's outcome is given back (one refit per photo, not per decision); it is followed no more.
   */
  private recordDecision(lesson: Lesson): { relation: RelationFeatures; correct: boolean; classId: string }[] {
    const shown = this.followed.get(lesson.object.id);
    if (!shown) return [];
    const correct = lesson.classId === shown.classId;
    this.model.recordDecision({ raw: shown.raw, correct, ...(shown.evidence === undefined ? {} : { evidence: shown.evidence }) }, shown.source);
    this.followed.delete(lesson.object.id);
    return [{ relation: shown.relation, correct, classId: shown.classId }];
  }

  private timed(step: () => void): void {
    const t0 = performance.now();
    step();
    this.stepMs.push(performance.now() - t0);
  }

  /** The waiting proposals' classes and confidences as the model sees them now. */
  refreshWaiting(): void {
    const doc = this.ports.document();
    for (const [objectId, shown] of this.followed) {
      const object = (doc.objects[shown.imageId] ?? []).find((o) => o.id === objectId);
      if (!object || reviewStateOf(object) !== 'unreviewed') {
        // Gone (deleted, undone) or decided: a decision is recorded when its lesson is taught.
        if (!object) this.followed.delete(objectId);
        continue;
      }
      const guess = bestGuess(this.model, shown.candidate, shown.descriptor);
      const target = guess && classNamed(doc.classes, guess.classId);
      if (!guess || !target) continue;
      const ranked = this.model.rankAgain(shown.relation, guess.probability, guess.classId);
      shown.classId = guess.classId;
      shown.raw = guess.raw;
      shown.evidence = guess.evidence;
      shown.source = guess.source;
      shown.relation = ranked.relation;
      if (object.classId !== target.id || Math.abs(object.confidence - ranked.probability) > 1e-3) {
        this.ports.reclass(shown.imageId, objectId, { classId: target.id, label: target.name, confidence: ranked.probability });
      }
    }
  }

  /** A proposal made from the learned classes, now an object of the document: followed while it waits. */
  follow(imageId: string, objectId: string, proposal: LearnedProposal, candidate: Candidate): void {
    this.followed.set(objectId, { imageId, candidate, descriptor: proposal.descriptor, classId: proposal.classId, raw: proposal.raw, ...(proposal.evidence === undefined ? {} : { evidence: proposal.evidence }), source: proposal.source, relation: proposal.relation });
  }

  isMined(imageId: string): boolean {
    return this.mined.has(imageId);
  }

  /**
   * A photo the person labelled, with the candidates found on it: those matching the person's objects
   * teach their class, the others background (proposeLearned.ts lessonsOfLabelledPhoto).
   */
  teachLabelledPhoto(image: ImageEntry, candidates: readonly Candidate[], descriptors: readonly RegionDescriptor[]): void {
    const lessons = lessonsOfLabelledPhoto(candidates, labelledRegions(this.ports.document(), image));
    this.timed(() => this.model.learnAll(lessons.map((classId, i) => ({ descriptor: descriptors[i], classId }))));
    this.mined.add(image.id);
    this.ports.changed?.();
  }

  learnedModel(): LearnedModelState {
    return { version: LEARNED_MODEL_VERSION, model: this.model.toJSON(), taught: [...this.taught], mined: [...this.mined] };
  }

  /** The lessons taught so far: object id → the signature taught (lessons.ts). */
  taughtLessons(): ReadonlyMap<string, string> {
    return new Map(this.taught);
  }

  /**
   * Takes a model learned elsewhere (a dataset's, a server project's; null: a fresh one) in place of
   * this one. `known` are the lessons it already holds (object id → signature): the document's other
   * lessons are taught into it on the next pass, so nothing taught here is lost and nothing it holds
   * is taught twice. Waits for a pass under way, so no pass lands in the model it replaces.
   */
  adoptModel(model: LearnedClassesState | null, known: ReadonlyMap<string, string>): Promise<void> {
    const replaced = model ? LearnedClasses.fromJSON(model) : new LearnedClasses();
    this.running = this.running
      .catch(() => undefined)
      .then(() => {
        this.model = replaced;
        this.taught = new Map(known);
        // Background mined from the photos lived in the replaced model: the photos may be mined again.
        this.mined.clear();
        this.refreshWaiting();
        this.ports.changed?.();
      });
    return this.running;
  }

  /** Replaces the learned state (a restored session, a server project's model); null starts afresh. */
  setLearnedModel(state: LearnedModelState | null): void {
    if (state && state.version !== LEARNED_MODEL_VERSION) throw new Error(`learned model version ${state.version}, this studio reads ${LEARNED_MODEL_VERSION}`);
    this.model = state ? LearnedClasses.fromJSON(state.model) : new LearnedClasses();
    this.taught = new Map(state?.taught ?? []);
    this.mined = new Set(state?.mined ?? []);
    this.followed.clear();
  }
}
