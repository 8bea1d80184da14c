/**
 * The metered routes' JSON body parser. The body stays bytes until a route asks for its value, so a
 * keyed retry can be answered from the digest of those bytes without parsing a 2 MB image again.
 * Plain JSON.parse instead of Fastify's prototype-poisoning scan (two regular expressions over the
 * whole body): these routes hand the value only to zod schemas, which copy the known keys into
 * fresh objects, so a `__proto__` or `constructor` key is dropped or refused and never reaches an
 * object that is merged or looked up.
 */
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../domain/errors';
import { parseMeteredJson } from './metered-json';

export class RawJsonBody {
  private parsed = false;
  private value: unknown;

  constructor(readonly bytes: Buffer) {}

  /** The body's JSON value; 400 malformed-json when there is none. Parsed once. */
  json(): unknown {
    if (!this.parsed) {
      if (this.bytes.length === 0) throw new DomainError('malformed-json', 'the body is empty; a JSON object is expected');
      try {
        this.value = parseMeteredJson(this.bytes);
      } catch (error) {
        throw new DomainError('malformed-json', `the body is not valid JSON: ${(error as Error).message}`);
      }
      this.parsed = true;
    }
    return this.value;
  }
}

/** Replaces this plugin context's application/json parser (other routes keep Fastify's). */
export function useRawJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    done(null, new RawJsonBody(body as Buffer));
  });
}

/** The JSON value of a request body, whichever parser produced it. */
export function jsonOf(body: unknown): unknown {
  return body instanceof RawJsonBody ? body.json() : body;
}
