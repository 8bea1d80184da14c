// Loaded by index.html before the studio's modules (a classic script runs before deferred module
// scripts): zod reads this configuration when its first schema is built, and jitless parsing never
// calls `new Function`, which the studio's Content-Security-Policy refuses (and reports). See
// src/engine/worker/jitlessZod.ts.
globalThis.__zod_globalConfig = Object.assign(globalThis.__zod_globalConfig || {}, { jitless: true });
