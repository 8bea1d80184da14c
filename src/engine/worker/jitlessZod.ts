/**
 * Imported first, for its effect, by the studio's engine worker (the page loads
 * public/zod-jitless.js, which does the same before any module): zod decides whether to compile
 * object parsers with `new Function` when a schema is built, probing first whether it may. Under
 * the studio's Content-Security-Policy (no `'unsafe-eval'`) that probe is refused and reported as a
 * violation even though zod catches it; jitless parsing never makes it. This module imports
 * nothing, so it runs before zod's own module, which adopts the configuration it finds. The server
 * keeps zod's compiled parsers.
 */
const holder = globalThis as { __zod_globalConfig?: Record<string, unknown> };
holder.__zod_globalConfig = { ...holder.__zod_globalConfig, jitless: true };

export {};
