/**
 * Imported for its effect by the browser's entry points (the studio's page and its engine worker):
 * zod compiles object parsers with `new Function` unless told not to, and first probes whether it
 * may. Under the studio's Content-Security-Policy (no `'unsafe-eval'`) that probe is refused and
 * reported as a violation even though zod catches it; jitless parsing never makes it. The server
 * keeps zod's compiled parsers.
 */
import { z } from 'zod';

z.config({ jitless: true });
