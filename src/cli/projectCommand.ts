/**
 * `project export`: a server project as a dataset file, for pipelines. Authenticated with an API
 * key; the dataset is the server's export (the studio's own writers), byte for byte.
 */
import { writeFileSync } from 'node:fs';
import { EXPORT_FORMATS, ExportFormat } from '../contract/projects';
import { parseFlags, UsageError } from './args';

export const PROJECT_USAGE = `usage: project export --project ID --format ${EXPORT_FORMATS.join('|')} [--out FILE] [--server URL] [--api-key KEY]

  --project ID     the project's id (GET /api/v1/projects lists yours)
  --format F       a format of the studio's Export menu: ${EXPORT_FORMATS.join(', ')}
  --out FILE       write the dataset to FILE (required for the formats that are a zip; JSON and XML go to stdout without it)
  --server URL     the API server (default: $MASKWRIGHT_API_URL, else http://127.0.0.1:8080)
  --api-key KEY    an API key (default: $MASKWRIGHT_API_KEY); prefer the variable: a flag is visible in the process list`;

interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

export interface ProjectExportOptions {
  projectId: string;
  format: ExportFormat;
  out?: string;
  server: string;
  apiKey: string;
}

export function parseProjectArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ProjectExportOptions {
  const [action, ...rest] = argv;
  if (action !== 'export') throw new UsageError(action ? `unknown project action "${action}"` : 'name an action: export');
  const flags = parseFlags(rest, { project: { value: true }, format: { value: true }, out: { value: true }, server: { value: true }, 'api-key': { value: true } });
  const projectId = flags.get('project')?.[0];
  if (!projectId) throw new UsageError('--project is required');
  const format = ExportFormat.safeParse(flags.get('format')?.[0]);
  if (!format.success) throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}`);
  const out = flags.get('out')?.[0];
  const apiKey = flags.get('api-key')?.[0] ?? env.MASKWRIGHT_API_KEY;
  if (!apiKey) throw new UsageError('an API key is required: set MASKWRIGHT_API_KEY (or --api-key)');
  const server = (flags.get('server')?.[0] ?? env.MASKWRIGHT_API_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  return { projectId, format: format.data, out, server, apiKey };
}

export async function projectCommand(argv: readonly string[], io: Io): Promise<number> {
  const options = parseProjectArgs(argv);
  const url = `${options.server}/api/v1/projects/${encodeURIComponent(options.projectId)}/export?format=${options.format}`;
  const response = await fetch(url, { headers: { Authorization: `Bearer ${options.apiKey}` } });
  const body = new Uint8Array(await response.arrayBuffer());
  if (!response.ok) {
    let detail = '';
    try {
      const problem = JSON.parse(new TextDecoder().decode(body)) as { type?: string; detail?: string; title?: string };
      detail = `${problem.type ?? ''}: ${problem.detail ?? problem.title ?? ''}`;
    } catch {
      detail = response.statusText;
    }
    io.stderr(`error: the server answered ${response.status} ${detail}\n`);
    return 1;
  }
  if (!options.out && !/json|xml/.test(response.headers.get('content-type') ?? '')) {
    io.stderr(`error: the ${options.format} export is a zip, not for a terminal: give --out FILE\n`);
    return 2;
  }
  if (options.out) {
    writeFileSync(options.out, body);
    io.stderr(`wrote ${body.byteLength} bytes to ${options.out}\n`);
  } else io.stdout(new TextDecoder().decode(body));
  return 0;
}
