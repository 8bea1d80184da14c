/** One job worker process (no HTTP) configured from the environment; needs DATABASE_URL. Started by workerMain.ts. */
import { closeOnSignals } from './closeOnSignals';
import { configFromEnv } from './config';
import { startJobWorker } from './server';

const config = configFromEnv();
const worker = await startJobWorker({ config });
console.log(
  [
    'Maskwright job worker started',
    `  queue:     ${worker.services.jobQueue.description}`,
    `  inference: ${worker.services.backend.description}`,
    `  images at once: ${config.jobs.concurrency}`,
  ].join('\n'),
);

closeOnSignals('finishing the images in hand', () => worker.close());
