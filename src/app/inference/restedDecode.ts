import type { PointPrompt } from '../../engine/types';
import type { LocalDecodeRequest } from './localDecodeRequest';

/**
 * The decode a resting cursor started, kept for the click that usually follows at the same spot:
 * that click then shows the answer already computed (or in flight) instead of decoding again.
 * The key is everything the click's decode depends on; anything else different means a new decode.
 */
export interface DecodeKey {
  imageId: string;
  /** The prompt's revision before the click adds its point. */
  revision: number;
  x: number;
  y: number;
  positive: boolean;
  multimask: boolean;
  /** The mask fed back (by identity): a mirror pass that lands in between changes it. */
  previous: Float32Array | undefined;
  tolerance: number;
}

/**
 * The key of the decode a click at `point` asks for (`request`, built by localDecodeRequest): the
 * hover decoder remembers under it, the click takes under it, so the two cannot describe it apart.
 */
export function decodeKeyOf(imageId: string, revision: number, point: PointPrompt, request: LocalDecodeRequest): DecodeKey {
  return {
    imageId,
    revision,
    x: point.x,
    y: point.y,
    positive: point.positive !== false,
    multimask: request.options.multimask,
    previous: request.prompt.maskInput,
    tolerance: request.options.tolerance,
  };
}

/** A click within this many image pixels of the rested cursor counts as the same spot. */
export const SAME_SPOT_PX = 1;

function sameDecode(a: DecodeKey, b: DecodeKey): boolean {
  return (
    a.imageId === b.imageId &&
    a.revision === b.revision &&
    a.positive === b.positive &&
    a.multimask === b.multimask &&
    a.previous === b.previous &&
    a.tolerance === b.tolerance &&
    Math.abs(a.x - b.x) <= SAME_SPOT_PX &&
    Math.abs(a.y - b.y) <= SAME_SPOT_PX
  );
}

export class RestedDecode<T> {
  private last: { key: DecodeKey; result: Promise<T> } | null = null;

  remember(key: DecodeKey, result: Promise<T>): void {
    this.last = { key, result };
    result.catch(() => {
      if (this.last?.result === result) this.last = null;
    });
  }

  /** The remembered decode if it answers `key` (used once), else undefined. */
  take(key: DecodeKey): Promise<T> | undefined {
    const last = this.last;
    if (!last || !sameDecode(last.key, key)) return undefined;
    this.last = null;
    return last.result;
  }
}
