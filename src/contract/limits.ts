import { MAX_IMAGE_PIXELS } from '../engine/answers';

/** Numeric limits of the service specification (../shared/spec/service-interface.md, "Limits"). */
export const LIMITS = {
  imageMaxChars: 2_097_152,
  promptsMax: 16,
  promptMinChars: 1,
  promptMaxChars: 500,
  pointsMax: 1_024,
  idempotencyKeyMaxChars: 128,
  requestsPerSecondPerUser: 3,
  keyedResultReuseMs: 24 * 60 * 60 * 1000,
  unkeyedResultReuseMs: 5 * 60 * 1000,
  creditsPerCall: 1,
  signupCredits: 5,
  recommendedMaxSide: 1024,
  /**
   * Largest decoded image, in pixels (width × height), checked from the file's header before any
   * charge and again by the decoder: one limit for both. Every call costs one credit whatever the
   * size; decoding and mask upsampling grow with the pixel count, the model itself always sees
   * 1024 × 1024 (server README, "Limits").
   */
  imageMaxPixels: MAX_IMAGE_PIXELS,
  /**
   * Smallest image side, in pixels, checked with the pixel limit before any charge: a thumbnail
   * under it holds no object to segment, and every call on one came back empty (and refunded)
   * after a full encoder run.
   */
  imageMinSide: 16,
} as const;

export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
