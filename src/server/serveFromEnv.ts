/** One server process configured from the environment (see src/server/README.md); started by main.ts. */
import { closeOnSignals } from './closeOnSignals';
import { configFromEnv } from './config';
import { LoopBlockLog } from './loopBlockLog';
import { startServer } from './server';

const PAYMENT_MODES = {
  stripe: 'Stripe Checkout',
  demo: 'DEMO MODE (no Stripe configured: purchases complete without payment; loopback only unless DEMO_PAYMENTS=on)',
  disabled: 'none (no Stripe configured, and demo purchases are refused on a non-loopback listener; DEMO_PAYMENTS=on allows them)',
} as const;

const config = configFromEnv();
const server = await startServer({ config });
// A diagnostic for benchmarks (bench:health): where the event loop is held, by request kind.
const loopBlocks = process.env.LOOP_BLOCK_LOG ? new LoopBlockLog(process.env.LOOP_BLOCK_LOG) : undefined;
loopBlocks?.watch(server.app.server);
const faults = Object.entries(config.faults);
console.log(
  [
    `Maskwright listening on ${server.url}`,
    `  database:  ${server.services.db.dialect}${config.databaseUrl ? '' : ` (${config.dataDir})`}`,
    `  payments:  ${PAYMENT_MODES[server.services.payments.mode]}`,
    `  inference: ${server.services.backend.description}`,
    `  docs:      ${server.url}/docs`,
    ...(faults.length ? [`  FAULT_INJECTION active (testing only): ${faults.map(([k, v]) => `${k}=${v}`).join(', ')}`] : []),
  ].join('\n'),
);

closeOnSignals('draining in-flight requests', () => server.close());
