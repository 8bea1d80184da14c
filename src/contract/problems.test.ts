import { describe, expect, it } from 'vitest';
import { jsonBody, readProblem } from './problems';

describe('readProblem: what a client reads from an error answer', () => {
  it('takes the type and the field errors’ messages, else detail, else title', () => {
    expect(readProblem({ type: '/problems/validation-failed', title: 'Request validation failed', detail: 'd', errors: [{ path: 'a', message: 'first' }, { path: 'b', message: 'second' }] })).toMatchObject({
      type: '/problems/validation-failed',
      message: 'first; second',
    });
    expect(readProblem({ type: '/problems/x', title: 'T', detail: 'the detail' }).message).toBe('the detail');
    expect(readProblem({ type: '/problems/x', title: 'T' }).message).toBe('T');
  });

  it('reads any body without throwing: nothing, an array, wrong types', () => {
    expect(readProblem(null)).toEqual({ type: undefined, message: undefined, body: {} });
    expect(readProblem([1, 2])).toEqual({ type: undefined, message: undefined, body: {} });
    expect(readProblem({ type: 4, detail: {}, errors: [null, { message: 3 }], title: 'kept' })).toMatchObject({ type: undefined, message: 'kept' });
  });

  it('keeps the whole body for fields only some problems carry', () => {
    expect(readProblem({ type: '/problems/revision-conflict', current: { objects: [] } }).body.current).toEqual({ objects: [] });
  });
});

describe('jsonBody', () => {
  it('parses JSON, and gives null for an empty or non-JSON body', async () => {
    expect(await jsonBody(new Response('{"a":1}'))).toEqual({ a: 1 });
    expect(await jsonBody(new Response(''))).toBeNull();
    expect(await jsonBody(new Response('<html>502 Bad Gateway</html>'))).toBeNull();
  });
});
