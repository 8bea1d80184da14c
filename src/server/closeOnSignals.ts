/**
 * The entry points' stop: at SIGINT or SIGTERM, say what is being finished, close, and exit 0 once
 * closed (1 if closing failed). A second signal exits at once.
 */
export function closeOnSignals(finishing: string, close: () => Promise<void>): void {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(1);
      stopping = true;
      console.log(`${signal}: ${finishing}…`);
      close().then(
        () => process.exit(0),
        (error) => {
          console.error(error);
          process.exit(1);
        },
      );
    });
  }
}
