import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { errorsPlugin } from './errors';

describe('errorsPlugin', () => {
  it("answers SQLite's lock still held after the wait with 503 service-busy and Retry-After, not 500", async () => {
    const app = Fastify();
    await app.register(errorsPlugin);
    app.get('/busy', async () => {
      throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    });
    app.get('/broken', async () => {
      throw new Error('something else');
    });
    const busy = await app.inject({ method: 'GET', url: '/busy' });
    expect([busy.statusCode, busy.headers['retry-after'], String(busy.headers['content-type']).split(';')[0]]).toEqual([503, '1', 'application/problem+json']);
    expect(busy.json()).toMatchObject({ status: 503, type: expect.stringContaining('service-busy') });
    expect((await app.inject({ method: 'GET', url: '/broken' })).statusCode).toBe(500);
    await app.close();
  });
});
