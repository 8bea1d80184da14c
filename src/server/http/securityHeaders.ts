/**
 * Headers that keep the studio (a page that holds API keys and buys credits) and the API from being
 * framed, scripted from elsewhere or leaking where the user came from. The Content-Security-Policy
 * is the one the studio's production build passes: its scripts are files of this origin (Vite
 * emits no inline script), onnxruntime-web compiles its WebAssembly (`'wasm-unsafe-eval'`, which
 * allows WebAssembly compilation and nothing of `eval`) and starts its threads from `/ort/` (same
 * origin), photos opened by the user are shown from `blob:` URLs, and every request goes to this
 * origin (models, ORT files, the API).
 */

export interface SecurityHeaderSettings {
  /** HSTS_MAX_AGE_SECONDS: sends Strict-Transport-Security (only behind TLS); absent = not sent. */
  hstsMaxAgeSeconds?: number;
}

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self' data: blob:",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function securityHeaders(settings: SecurityHeaderSettings = {}): Record<string, string> {
  return {
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    // For browsers that predate frame-ancestors.
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()',
    ...(settings.hstsMaxAgeSeconds !== undefined ? { 'Strict-Transport-Security': `max-age=${settings.hstsMaxAgeSeconds}; includeSubDomains` } : {}),
  };
}
