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
import { readMeteredJson, type MeteredJson } from './meteredJson';

export class RawJsonBody {
  private read: MeteredJson | undefined;

  constructor(readonly bytes: Buffer) {}

  /** The body's JSON value, its image possibly left as bytes; 400 malformed-json when there is none. Read once. */
  json(): MeteredJson {
    if (!this.read) {
      if (this.bytes.length === 0) throw new DomainError('malformed-json', 'the body is empty; a JSON object is expected');
      try {
        this.read = readMeteredJson(this.bytes);
      } catch (error) {
        throw new DomainError('malformed-json', `the body is not valid JSON: ${(error as Error).message}`);
      }
    }
    return this.read;
  }
}

/** Replaces this plugin context's application/json parser (other routes keep Fastify's). */
export function useRawJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    done(null, new RawJsonBody(body as Buffer));
  });
}

/** A request body read as metered JSON, whichever parser produced it. */
export function meteredJsonOf(body: unknown): MeteredJson {
  return body instanceof RawJsonBody ? body.json() : { value: body };
}
