/**
 * Maskwright command line: `npm run -s cli -- <command> [options]`.
 * Each subcommand is one module; stdout carries only the command's result.
 */
import { InputError, UsageError } from './args';
import { projectCommand, PROJECT_USAGE } from './projectCommand';
import { pvsCommand, PVS_USAGE } from './pvsCommand';
import { segmentCommand, SEGMENT_USAGE } from './segment';
import { everythingCommand, EVERYTHING_USAGE } from './everything';
import { labelCommand, LABEL_USAGE } from './label';

interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

type Command = { run: (argv: readonly string[], io: Io) => Promise<number>; usage: string; summary: string };

/** Subcommands. `segment` (text prompts) is added by the text-prompt work (issue 5). */
export const COMMANDS: Record<string, Command> = {
  pvs: { run: pvsCommand, usage: PVS_USAGE, summary: 'segment one object from points and/or a center-anchored box' },
  segment: { run: segmentCommand, usage: SEGMENT_USAGE, summary: 'segment the objects named by text prompts' },
  everything: { run: everythingCommand, usage: EVERYTHING_USAGE, summary: 'segment every object and region of an image (proposals to review)' },
  label: { run: labelCommand, usage: LABEL_USAGE, summary: 'learn classes from labelled photos and propose them on the others (COCO in, COCO out)' },
  project: { run: projectCommand, usage: PROJECT_USAGE, summary: 'export a server project as a dataset (API key)' },
};

function mainUsage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return `usage: npm run -s cli -- <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nRun a command with --help for its options.`;
}

export async function main(argv: readonly string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io[name ? 'stdout' : 'stderr'](mainUsage() + '\n');
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.stderr(`error: unknown command "${name}"\n\n${mainUsage()}\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(command.usage + '\n');
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`error: ${err.message}\n\n${command.usage}\n`);
      return 2;
    }
    if (err instanceof InputError) {
      io.stderr(`error: ${err.message}\n`);
      return 2;
    }
    io.stderr(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

const io: Io = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
};

// Set the exit code instead of process.exit(), so stdout is flushed completely when piped.
main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`error: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  },
);
