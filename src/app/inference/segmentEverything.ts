import type { EverythingEvent, EverythingProposalResult } from '../../engine/service/api';
import type { ImageEntry } from '../../annotations/annotation';
import { proposedBy } from '../../annotations/review';
import type { EngineSession } from './engineSession';
import { addWithoutDuplicates, type LeftOutReason } from './objectDedupe';

/**
 * "Segment everything" on one image: the engine proposes every object and region (its shipped rule,
 * src/engine/everything/), in the background, with progress; what it found lands as proposals
 * through the de-duplication rule (objectDedupe.ts) in one undo step. Stop keeps what was found
 * before it: the events carry each proposal as it is found, so the run's answer so far is known.
 */

export interface EverythingProgress {
  readonly imageName: string;
  /** Decoder runs done, of `planned` (0 of 0 while the detectors look for boxes). */
  readonly decoded: number;
  readonly planned: number;
  /** Proposals the engine holds so far. */
  readonly found: number;
  /** Once landed: proposals added, and those left out (already there, rejected before, ...). */
  readonly added: number;
  readonly leftOut: readonly LeftOutReason[];
  readonly running: boolean;
  readonly stopped: boolean;
}

type LiveProposals = Map<number, EverythingProposalResult>;

/** One event into the proposals kept so far: those it removed go, those it added come in. */
function keep(live: LiveProposals, e: EverythingEvent): LiveProposals {
  for (const id of e.removed) live.delete(id);
  for (const p of e.added) live.set(p.id, p);
  return live;
}

const bestFirst = (live: LiveProposals) => [...live.values()].sort((a, b) => b.confidence - a.confidence);

/** The proposals the events have kept so far (added, less those a better one replaced), best first. */
export function liveProposals(events: readonly EverythingEvent[]): EverythingProposalResult[] {
  return bestFirst(events.reduce(keep, new Map()));
}

/** A proposal as an object to review: class-agnostic (unlabelled), named by its detector's class when one prompted it. */
export function everythingObject(p: EverythingProposalResult, tolerance: number) {
  return {
    label: p.label ?? 'object',
    classId: null,
    confidence: Math.min(1, Math.max(0, p.confidence)),
    visible: true,
    polygons: p.polygons,
    mask: p.mask,
    outlineTolerance: tolerance,
    source: 'local' as const,
    review: proposedBy('segment-everything'),
  };
}

export type EverythingEngine = Pick<EngineSession, 'segmentEverything'>;

export async function segmentEverythingOnImage(
  engine: EverythingEngine,
  image: Pick<ImageEntry, 'id' | 'name' | 'width' | 'height'>,
  settings: { tolerance: number; options?: Parameters<EngineSession['segmentEverything']>[1]['options'] },
  signal: AbortSignal,
  onProgress: (progress: EverythingProgress) => void,
  add: typeof addWithoutDuplicates = addWithoutDuplicates,
): Promise<EverythingProgress> {
  let progress: EverythingProgress = { imageName: image.name, decoded: 0, planned: 0, found: 0, added: 0, leftOut: [], running: true, stopped: false };
  onProgress(progress);
  const live: LiveProposals = new Map();
  let proposals: EverythingProposalResult[];
  try {
    const answer = await engine.segmentEverything(
      image.id,
      { options: settings.options, outline: { tolerance: settings.tolerance } },
      {
        signal,
        onEvent: (e) => {
          progress = { ...progress, decoded: e.decoded, planned: e.planned, found: keep(live, e).size };
          onProgress(progress);
        },
      },
    );
    proposals = answer.proposals;
  } catch (error) {
    if (!signal.aborted) throw error;
    proposals = bestFirst(live);
  }
  const objects = proposals.map((p) => everythingObject(p, settings.tolerance));
  const { added, reasons } = add(image, objects, `segment everything on ${image.name}`);
  progress = { ...progress, found: proposals.length, added, leftOut: reasons, running: false, stopped: signal.aborted };
  onProgress(progress);
  return progress;
}
