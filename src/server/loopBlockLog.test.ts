import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { LoopBlockLog, requestKind, type LoopBlock } from './loopBlockLog';

describe('requestKind', () => {
  it('names a route without its ids and keeps only an export format from the query', () => {
    expect(requestKind('GET', '/api/v1/projects/prj_01HZX9ABCDEF12/export?format=coco&x=1')).toBe('GET /api/v1/projects/{id}/export?format=coco');
    expect(requestKind('PUT', '/api/v1/projects/p_9f8e7d6c5b/images/img-00000000013a/annotations')).toBe('PUT /api/v1/projects/{id}/images/{id}/annotations');
    expect(requestKind('POST', '/api/v1/projects/prj_FakkyJQMqaduzWMuqrlfGg/images')).toBe('POST /api/v1/projects/{id}/images');
    expect(requestKind('GET', '/api/v1/health')).toBe('GET /api/v1/health');
    expect(requestKind('POST', '/api/v1/auth/signup')).toBe('POST /api/v1/auth/signup');
  });
});

describe('LoopBlockLog', () => {
  it('records a block of the event loop with its main-thread CPU and the request then in flight', async () => {
    const blocks: LoopBlock[] = [];
    const log = new LoopBlockLog(undefined, { tickMs: 5, minBlockMs: 20, write: (block) => blocks.push(block) });
    const server = createServer((request, response) => {
      // The request's handler holds the loop for 80 ms of CPU (not wall time: the machine may be loaded) before answering.
      const cpuMs = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
      const until = cpuMs() + 80;
      while (cpuMs() < until);
      setTimeout(() => response.end('done'), 30);
    });
    log.watch(server);
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    try {
      const { port } = server.address() as { port: number };
      await (await fetch(`http://127.0.0.1:${port}/api/v1/projects/prj_01HZX9ABCDEF12/export?format=voc`)).text();
      await new Promise((r) => setTimeout(r, 20));
    } finally {
      log.stop();
      server.close();
    }
    const duringRequest = blocks.filter((block) => block.inFlight.includes('GET /api/v1/projects/{id}/export?format=voc'));
    const longest = duringRequest.reduce((a, b) => (b.cpuMs > a.cpuMs ? b : a));
    // The CPU it held the loop for (plus at most a tick's worth), and a wall time no shorter.
    expect(longest.cpuMs).toBeGreaterThanOrEqual(80);
    expect(longest.cpuMs).toBeLessThan(80 + 20);
    expect(longest.wallMs).toBeGreaterThanOrEqual(longest.cpuMs - 10);
    expect(longest.inFlight).toEqual(['GET /api/v1/projects/{id}/export?format=voc']);
  });
});
