import { paidCallRefusal } from '../account/payer';
import { LIMITS } from '../../contract';
import type { PointPrompt, PolygonWithHoles, Vertex, VisualPrompt } from '../../engine/types';
import { clampBoxToImage } from '../geometry/centerBox';
import { polygonsToOriginal, scaleBox, scalePoint, uploadScaleFor } from '../geometry/uploadScale';
import { encodeForUpload } from '../images/imageLibrary';
import { ACCOUNT_QUERY, queryClient } from '../queryClient';
import { promptOf } from '../state/documentOps';
import { hasPrompt, type Candidate, type PromptState } from '../state/model';
import { edits, liveSelection } from '../state/editActions';
import { currentDocument, studio } from '../state/studioStore';
import { useUi } from '../state/uiStore';
import type { ToolOutput } from '../tools/types';
import { isEmbedded, predictLocal, type LocalCandidate } from './localEngine';
import { RestedDecode, type DecodeKey } from './restedDecode';
import { RemoteCallError, remotePvs } from './remoteClient';
import { UnsettledKeys } from './unsettledKeys';

/**
 * Wires tool outputs to the document and to inference. Local mode asks the engine after every
 * click; remote mode collects the prompt and asks the paid API only when the user presses Segment
 * (the cost is shown on that button).
 */

const PROMPT_LIMIT_POINTS = LIMITS.pointsMax;

function activeImage() {
  const doc = currentDocument();
  return doc.images.find((i) => i.id === doc.activeImageId) ?? null;
}

export function handleToolOutputs(outputs: readonly ToolOutput[]): void {
  for (const output of outputs) {
    const image = activeImage();
    if (!image) return;
    if (output.type === 'hover') {
      hoverAt(image.id, output.at);
      continue;
    }
    if (output.type === 'select') {
      edits.selectAt(output.at, output.additive);
      continue;
    }
    if (output.type === 'stroke') {
      edits.stroke(output.path, output.erase);
      continue;
    }
    // A click while one object is selected refines that object, continuing from its prompt and logits.
    const [refining] = liveSelection();
    if (refining && promptOf(currentDocument(), image.id).targetObjectId !== refining) edits.beginRefine(refining);
    const previous = promptOf(currentDocument(), image.id);
    const refinement = previous.candidates[previous.selected]?.lowResLogits;
    let revision: number;
    let rested: Promise<LocalCandidate[]> | undefined;
    if (output.type === 'addPoint') {
      if (previous.points.length >= PROMPT_LIMIT_POINTS) return;
      const { x, y } = output.point;
      const multimask = wantsMultimask({ ...previous, points: [...previous.points, output.point] });
      rested = restedDecode.take({ imageId: image.id, revision: previous.revision, x, y, positive: output.point.positive !== false, multimask, tolerance: useUi.getState().tolerance });
      revision = studio.addPoint(image.id, output.point);
    } else {
      revision = studio.setBox(image.id, clampBoxToImage(output.box, image.width, image.height));
    }
    useUi.getState().setHoverPreview(null);
    if (useUi.getState().mode === 'local') void runLocal(image.id, revision, refinement, rested);
  }
}

function toVisualPrompt(prompt: PromptState, maskInput?: Float32Array): VisualPrompt {
  return { points: prompt.points, box: prompt.box ?? undefined, maskInput };
}

/** SAM's own advice: several candidates for an ambiguous single click, one refined mask otherwise. */
function wantsMultimask(prompt: PromptState): boolean {
  return prompt.points.length + (prompt.box ? 1 : 0) <= 1;
}

/** `rested`: the decode the resting cursor already started for exactly this click (restedDecode.ts). */
export async function runLocal(imageId: string, revision: number, maskInput?: Float32Array, rested?: Promise<LocalCandidate[]>): Promise<void> {
  const prompt = promptOf(currentDocument(), imageId);
  if (prompt.revision !== revision || !hasPrompt(prompt)) return;
  studio.markPending(imageId, revision, 'pending', isEmbedded(imageId) ? null : 'Analysing the image first (once per image)…');
  try {
    const multimask = wantsMultimask(prompt);
    const decode = () => predictLocal(imageId, toVisualPrompt(prompt, multimask ? undefined : maskInput), { multimask, tolerance: useUi.getState().tolerance });
    const candidates = rested ? await rested.catch(decode) : await decode();
    studio.resolve(imageId, revision, candidates);
  } catch (error) {
    studio.fail(imageId, revision, error instanceof Error ? error.message : String(error));
  }
}

/** Re-runs the current prompt (after switching mode, or a failure). */
export function rerunActivePrompt(): void {
  const image = activeImage();
  if (!image) return;
  const prompt = promptOf(currentDocument(), image.id);
  if (!hasPrompt(prompt)) return;
  if (useUi.getState().mode === 'local') void runLocal(image.id, prompt.revision);
  else void runRemote(image.id);
}

/** Pressing Segment again after a dropped connection replays the same Idempotency-Key. */
const unsettledKeys = new UnsettledKeys();

export async function runRemote(imageId: string): Promise<void> {
  const doc = currentDocument();
  const image = doc.images.find((i) => i.id === imageId);
  const prompt = promptOf(doc, imageId);
  if (!image || !hasPrompt(prompt)) return;
  const { remote } = useUi.getState();
  const revision = prompt.revision;
  if (!remote.apiKey) {
    studio.fail(imageId, revision, 'Remote mode needs an API key: paste one in Remote settings, or generate one on the API keys page.');
    return;
  }
  const refusal = await paidCallRefusal(remote).catch(() => null);
  if (refusal) {
    studio.fail(imageId, revision, refusal);
    return;
  }
  studio.markPending(imageId, revision, 'pending');
  const attempt = `${imageId}:${revision}`;
  const idempotencyKey = unsettledKeys.keyFor(attempt);
  try {
    const scale = uploadScaleFor(image.width, image.height, LIMITS.recommendedMaxSide);
    const body = {
      image: await encodeForUpload(imageId, scale),
      points: prompt.points.length ? prompt.points.map((p: PointPrompt) => ({ ...scalePoint(p, scale), positive: p.positive !== false })) : undefined,
      box: prompt.box ? scaleBox(prompt.box, scale) : undefined,
      imageId: scale === 1 ? imageId : `${imageId}@${Math.round(scale * 1000)}`,
      multimaskOutput: true,
    };
    const result = await remotePvs(remote, body, {
      idempotencyKey,
      onWaiting: (reason, seconds) => studio.markPending(imageId, revision, 'waiting', `${reason} (${Math.ceil(seconds)} s)…`),
    });
    const receipt = { requestId: result.requestId, refunded: result.refunded };
    const predictions = result.data.prompts[0]?.predictions ?? [];
    const candidates: Candidate[] = predictions.map((p) => {
      const polygons = polygonsToOriginal(p.masks.map((ring) => ({ outer: ring as Vertex[], holes: [] })), scale);
      return { polygons, score: p.confidence, area: 0, receipt };
    });
    unsettledKeys.succeeded(attempt);
    studio.resolve(imageId, revision, candidates);
    if (candidates.length === 0) studio.fail(imageId, revision, `No mask found${result.refunded ? ' — the credit was refunded' : ''}. Request ${result.requestId ?? ''}`.trim());
  } catch (error) {
    unsettledKeys.failed(attempt, error);
    const message = error instanceof RemoteCallError && error.requestId ? `${error.message} (request ${error.requestId})` : error instanceof Error ? error.message : String(error);
    studio.fail(imageId, revision, message);
  } finally {
    void queryClient.invalidateQueries({ queryKey: ACCOUNT_QUERY });
  }
}

/* ---------- live preview under the cursor (local mode only: remote calls cost credits) ---------- */

let hoverTarget: { imageId: string; at: Vertex; revision: number } | null = null;
/** The hover decode asks exactly what a click there would, so the click can reuse its answer. */
const restedDecode = new RestedDecode<LocalCandidate[]>();
let hoverInFlight = false;
let lastHoverSent = 0;
const HOVER_INTERVAL_MS = 90;

export function hoverAt(imageId: string, at: Vertex | null): void {
  const ui = useUi.getState();
  if (!at || ui.mode !== 'local' || (ui.tool !== 'positive' && ui.tool !== 'negative') || !isEmbedded(imageId)) {
    hoverTarget = null;
    if (ui.hoverPreview) ui.setHoverPreview(null);
    return;
  }
  hoverTarget = { imageId, at, revision: promptOf(currentDocument(), imageId).revision };
  pumpHover();
}

/** At most one preview in flight; the latest cursor position wins and stale answers are dropped. */
let hoverTimer: ReturnType<typeof setTimeout> | null = null;

function pumpHover(): void {
  if (hoverInFlight || !hoverTarget || hoverTimer) return;
  const wait = lastHoverSent + HOVER_INTERVAL_MS - performance.now();
  if (wait > 0) {
    hoverTimer = setTimeout(() => {
      hoverTimer = null;
      pumpHover();
    }, wait);
    return;
  }
  const target = hoverTarget;
  const prompt = promptOf(currentDocument(), target.imageId);
  const positive = useUi.getState().tool === 'positive';
  const points = [...prompt.points, { x: target.at[0], y: target.at[1], positive }];
  if (!points.some((p) => p.positive !== false) && !prompt.box) return;
  hoverInFlight = true;
  lastHoverSent = performance.now();
  const multimask = wantsMultimask({ ...prompt, points });
  const tolerance = useUi.getState().tolerance;
  const maskInput = multimask ? undefined : prompt.candidates[prompt.selected]?.lowResLogits;
  const decode = predictLocal(target.imageId, { points, box: prompt.box ?? undefined, maskInput }, { multimask, tolerance });
  const key: DecodeKey = { imageId: target.imageId, revision: target.revision, x: target.at[0], y: target.at[1], positive, multimask, tolerance };
  restedDecode.remember(key, decode);
  decode
    .then((candidates) => {
      const stillCurrent = hoverTarget && hoverTarget.imageId === target.imageId && hoverTarget.revision === target.revision;
      if (!stillCurrent) return;
      const best = candidates.reduce<PolygonWithHoles[] | null>((acc, c) => acc ?? c.polygons, null);
      useUi.getState().setHoverPreview(best ? { imageId: target.imageId, polygons: best } : null);
    })
    .catch(() => undefined)
    .finally(() => {
      hoverInFlight = false;
      if (hoverTarget && hoverTarget !== target) pumpHover();
    });
}
