/**
 * A small HTTP client for black-box tests: real fetch over loopback, a cookie jar per session,
 * raw bodies allowed (the fuzzers send malformed JSON on purpose).
 */

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** Parsed body when it is JSON, otherwise undefined. */
  readonly body: any;
  readonly setCookies: string[];
}

export interface RequestOptions {
  readonly method?: string;
  /** Serialised with JSON.stringify and sent as application/json. */
  readonly json?: unknown;
  /** Sent verbatim (use for malformed bodies); `contentType` defaults to application/json. */
  readonly rawBody?: string | Uint8Array;
  readonly contentType?: string | null;
  readonly headers?: Record<string, string>;
  readonly bearer?: string;
  readonly cookies?: CookieJar;
  readonly timeoutMs?: number;
}

export async function request(baseUrl: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Uint8Array | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  } else if (options.rawBody !== undefined) {
    body = options.rawBody;
    if (options.contentType !== null) headers['content-type'] ??= options.contentType ?? 'application/json';
  }
  if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`;
  if (options.cookies) {
    const cookieHeader = options.cookies.header();
    if (cookieHeader) headers.cookie = cookieHeader;
  }
  const response = await fetch(`${baseUrl}${path}`, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body: body as BodyInit | undefined,
    signal: AbortSignal.timeout(options.timeoutMs ?? 120_000),
  });
  const text = await response.text();
  const setCookies = response.headers.getSetCookie();
  options.cookies?.absorb(setCookies);
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed, setCookies };
}

/** Name → value; attributes are kept separately for the security suite to inspect. */
export class CookieJar {
  private readonly values = new Map<string, string>();

  absorb(setCookies: string[]): void {
    for (const line of setCookies) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /max-age=0/i.test(line) || /expires=thu, 01 jan 1970/i.test(line)) this.values.delete(name);
      else this.values.set(name, value);
    }
  }

  get(name: string): string | undefined {
    return this.values.get(name);
  }

  header(): string {
    return [...this.values].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Seconds from a Retry-After header (delta-seconds form), defaulting to 1. */
export function retryAfterMs(response: ApiResponse, fallbackMs = 1_000): number {
  const value = response.headers.get('retry-after');
  const seconds = value === null ? NaN : Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1_000 : fallbackMs;
}
