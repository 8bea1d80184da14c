/**
 * The performance mark the canvas sets when a click's answer is drawn; bench/studioClicks.ts reads it
 * to time click → mask on screen. Its own module so the bench (Node) imports a name, not the canvas.
 */
export const MASK_ON_SCREEN_MARK = 'maskwright:mask-on-screen';
