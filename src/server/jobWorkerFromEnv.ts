/** One job worker process (no HTTP) configured from the environment; needs DATABASE_URL. Started by workerMain.ts. */
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

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`${signal}: finishing the images in hand…`);
    worker.close().then(
      () => process.exit(0),
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}
