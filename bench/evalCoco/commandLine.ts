/**
 * The command line every `--dataset coco` mode reads the same way: its usage printed with any wrong
 * argument (exit 2, nothing run) or on --help, the options all modes share, and the photos' instances.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';

type OptionConfig = NonNullable<ParseArgsConfig['options']>[string];

const SHARED_OPTIONS = {
  dataset: { type: 'string' },
  mode: { type: 'string' },
  data: { type: 'string' },
  out: { type: 'string' },
  limit: { type: 'string' },
  threads: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `name` is how the mode signs its messages ("eval coco learn"). */
export function evalCommandLine<const Own extends Record<string, OptionConfig>>(name: string, usage: string, options: Own) {
  const fail: (message: string) => never = (message) => {
    process.stderr.write(`${name}: ${message}\n\n${usage}\n`);
    process.exit(2);
  };
  return {
    fail,
    /** The arguments, or null once --help has printed the usage. */
    parse(argv: readonly string[]) {
      let parsed;
      try {
        parsed = parseArgs({ args: [...argv], options: { ...SHARED_OPTIONS, ...options }, strict: true });
      } catch (error) {
        return fail((error as Error).message);
      }
      if ((parsed.values as { help?: boolean }).help) {
        process.stdout.write(`${usage}\n`);
        return null;
      }
      return parsed.values;
    },
    /** The folder's instances.json, or the run ends saying it has none. */
    readInstances: async <T>(dataDir: string): Promise<T> => JSON.parse(await readFile(join(dataDir, 'instances.json'), 'utf8').catch(() => fail(`no instances.json in ${dataDir}`))) as T,
  };
}
