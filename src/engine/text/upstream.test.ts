/**
 * The upstream adapter against a local stand-in that speaks Roboflow's sam3/concept_segment wire
 * format over real HTTP (the real service is a third party we cannot reach from tests).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SegmentResponse } from '../../contract';
import { bareBase64, conceptSegmentUrl, createUpstreamTextSegmenter, UpstreamError } from './upstream';

type Handler = (body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse) => void;
let server: Server;
let base: string;
let handler: Handler;
const seen: { url: string; body: Record<string, unknown> }[] = [];

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof value === 'string' ? value : JSON.stringify(value));
}

/** What the SAM 3 server answers: one result per text prompt, polygons as [x, y] lists. */
const sam3Answer: Handler = (body, _req, res) => {
  const prompts = body.prompts as { type: string; text: string }[];
  json(res, 200, {
    prompt_results: prompts.map((p, i) => ({
      prompt_index: i,
      echo: { prompt_index: i, type: 'text', text: p.text },
      predictions:
        p.text === 'unicorn'
          ? []
          : [
              { masks: [[[10, 10], [50, 10], [50, 40], [10, 40]]], confidence: 0.91, format: 'polygon' },
              { masks: [[[60, 60], [80, 60], [70, 75]], [[1, 1], [2, 2]]], confidence: 1.2, format: 'polygon' },
            ],
    })),
    time: 0.12,
  });
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      seen.push({ url: req.url ?? '', body });
      handler(body, req, res);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((done) => server.close(done));
});

describe('SAM 3 upstream adapter', () => {
  it('sends the concept_segment request and maps the answer to our response', async () => {
    handler = sam3Answer;
    seen.length = 0;
    const upstream = createUpstreamTextSegmenter({ url: base, apiKey: 'k3y' });
    const response = await upstream.segmentBase64('data:image/png;base64,iVBORw0KGgo=', ['dog', 'unicorn']);

    expect(seen).toHaveLength(1);
    expect(seen[0].url).toBe('/sam3/concept_segment?api_key=k3y');
    expect(seen[0].body).toEqual({
      image: { type: 'base64', value: 'iVBORw0KGgo=' },
      prompts: [
        { type: 'text', text: 'dog' },
        { type: 'text', text: 'unicorn' },
      ],
      output_prob_thresh: 0.5,
      format: 'polygon',
    });
    expect(SegmentResponse.parse(response)).toEqual(response);
    expect(response.prompt_results.map((r) => r.echo.text)).toEqual(['dog', 'unicorn']);
    const [dog, unicorn] = response.prompt_results;
    expect(dog.predictions).toEqual([
      { label: 'dog', confidence: 0.91, masks: [[[10, 10], [50, 10], [50, 40], [10, 40]]] },
      // Confidence clamped into [0, 1]; a degenerate two-point ring dropped.
      { label: 'dog', confidence: 1, masks: [[[60, 60], [80, 60], [70, 75]]] },
    ]);
    expect(unicorn.predictions).toEqual([]);
  });

  it.each([
    ['a 5xx answer', (_b: Record<string, unknown>, _q: IncomingMessage, res: ServerResponse) => json(res, 503, { message: 'overloaded' }), /answered 503/],
    ['a body that is not JSON', (_b: Record<string, unknown>, _q: IncomingMessage, res: ServerResponse) => json(res, 200, '<html>oops'), /not JSON/],
    ['a body of another shape', (_b: Record<string, unknown>, _q: IncomingMessage, res: ServerResponse) => json(res, 200, { predictions: [] }), /unexpected shape/],
    [
      'a missing prompt result',
      (_b: Record<string, unknown>, _q: IncomingMessage, res: ServerResponse) => json(res, 200, { prompt_results: [{ prompt_index: 0, predictions: [] }] }),
      /no result for prompt 1/,
    ],
    [
      'an echo of another prompt',
      (_b: Record<string, unknown>, _q: IncomingMessage, res: ServerResponse) =>
        json(res, 200, {
          prompt_results: [
            { prompt_index: 0, echo: { text: 'cat' }, predictions: [] },
            { prompt_index: 1, echo: { text: 'unicorn' }, predictions: [] },
          ],
        }),
      /echoed "cat"/,
    ],
    [
      'RLE masks',
      (_b: Record<string, unknown>, _q: IncomingMessage, res: ServerResponse) =>
        json(res, 200, {
          prompt_results: [0, 1].map((i) => ({ prompt_index: i, predictions: [{ masks: [], confidence: 0.5, format: 'rle' }] })),
        }),
      /"rle" masks/,
    ],
  ] as [string, Handler, RegExp][])('turns %s into an UpstreamError', async (_what, answer, message) => {
    handler = answer;
    const upstream = createUpstreamTextSegmenter({ url: `${base}/sam3/concept_segment` });
    const failure = upstream.segmentBase64('iVBORw0KGgo=', ['dog', 'unicorn']);
    await expect(failure).rejects.toBeInstanceOf(UpstreamError);
    await expect(failure).rejects.toThrow(message);
  });

  it('times out a silent upstream and reports an unreachable one', async () => {
    handler = () => undefined; // never answers
    await expect(createUpstreamTextSegmenter({ url: base, timeoutMs: 200 }).segmentBase64('AA==', ['dog'])).rejects.toThrow(/timed out/);
    await expect(createUpstreamTextSegmenter({ url: 'http://127.0.0.1:1' }).segmentBase64('AA==', ['dog'])).rejects.toThrow(UpstreamError);
  });
});

describe('upstream helpers', () => {
  it('builds the endpoint from a base URL or a full URL', () => {
    expect(conceptSegmentUrl('https://serverless.roboflow.com')).toBe('https://serverless.roboflow.com/sam3/concept_segment');
    expect(conceptSegmentUrl('http://gpu:9001/sam3/concept_segment/', 'x')).toBe('http://gpu:9001/sam3/concept_segment/?api_key=x');
    expect(conceptSegmentUrl('http://gpu:9001/v1', 'a b')).toBe('http://gpu:9001/v1/sam3/concept_segment?api_key=a+b');
  });

  it('strips a data-URI prefix only', () => {
    expect(bareBase64('data:image/jpeg;base64,/9j/4AAQ')).toBe('/9j/4AAQ');
    expect(bareBase64('/9j/4AAQ')).toBe('/9j/4AAQ');
  });
});
