/** Small, strict argument parsing for the CLI: unknown flags and malformed values are errors. */
import { ImageDecodeError, readImageFile } from '../engine/adapters/nodeImage';
import type { RgbaImage } from '../engine/types';

/** Malformed command line: the message is followed by the command's usage. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Well-formed command line naming unusable input (missing file, not an image): message only. */
export class InputError extends Error {
  override name = 'InputError';
}

export interface FlagSpec {
  /** Takes a value (`--image FILE`) or is a switch (`--no-multimask`). */
  readonly value: boolean;
  readonly repeatable?: boolean;
}

export type ParsedFlags = Map<string, string[]>;

/** Parses `--name value`, `--name=value` and switches; positional arguments are rejected. */
export function parseFlags(argv: readonly string[], spec: Record<string, FlagSpec>): ParsedFlags {
  const flags: ParsedFlags = new Map();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const flag = spec[name];
    if (!flag) throw new UsageError(`unknown option --${name}`);
    let value = '';
    if (flag.value) {
      if (eq !== -1) value = arg.slice(eq + 1);
      else {
        const next = argv[i + 1];
        if (next === undefined || (next.startsWith('--') && next.length > 2)) throw new UsageError(`--${name} needs a value`);
        value = next;
        i++;
      }
    } else if (eq !== -1) {
      throw new UsageError(`--${name} takes no value`);
    }
    const seen = flags.get(name);
    if (seen && !flag.repeatable) throw new UsageError(`--${name} given more than once`);
    flags.set(name, [...(seen ?? []), value]);
  }
  return flags;
}

/** A finite number, written plainly (no hex, no empty strings, no "1e", no trailing junk). */
export function parseNumber(text: string, what: string): number {
  const trimmed = text.trim();
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed)) throw new UsageError(`${what}: "${text}" is not a number`);
  const n = Number(trimmed);
  if (!Number.isFinite(n)) throw new UsageError(`${what}: "${text}" is not a finite number`);
  return n;
}

export function parseNumberList(text: string, what: string, count: number): number[] {
  const parts = text.split(',');
  if (parts.length !== count) throw new UsageError(`${what}: expected ${count} comma-separated numbers, got "${text}"`);
  return parts.map((p) => parseNumber(p, what));
}

/** `--tolerance PX` (≥ 0) and `--threads N` (a positive integer), which every command takes. */
export function parseEngineFlags(flags: ParsedFlags): { tolerance?: number; threads?: number } {
  const toleranceText = flags.get('tolerance')?.[0];
  const tolerance = toleranceText === undefined ? undefined : parseNumber(toleranceText, '--tolerance');
  if (tolerance !== undefined && tolerance < 0) throw new UsageError('--tolerance must be ≥ 0');
  const threadsText = flags.get('threads')?.[0];
  const threads = threadsText === undefined ? undefined : parseNumber(threadsText, '--threads');
  if (threads !== undefined && !(Number.isInteger(threads) && threads >= 1)) throw new UsageError('--threads must be a positive integer');
  return { tolerance, threads };
}

/** The image named by `--image`, decoded; what cannot be read or decoded is an InputError. */
export async function readImageArgument(path: string): Promise<RgbaImage> {
  try {
    return await readImageFile(path);
  } catch (err) {
    if (err instanceof ImageDecodeError) throw new InputError(`--image ${path}: ${err.message}`);
    throw err;
  }
}
