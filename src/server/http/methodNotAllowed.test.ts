import { describe, expect, it } from 'vitest';
import { RouteMethods } from './methodNotAllowed';

describe('route methods', () => {
  it('lists the methods of a path, path parameters matching one segment', () => {
    const routes = new RouteMethods();
    routes.add('/api/v1/api-keys', ['GET', 'HEAD']);
    routes.add('/api/v1/api-keys', ['POST']);
    routes.add('/api/v1/api-keys/:id', ['DELETE']);
    routes.add('/api/v1/api-keys/:id/rotate', ['POST']);
    expect(routes.allowed('/api/v1/api-keys')).toEqual(['GET', 'HEAD', 'POST']);
    expect(routes.allowed('/api/v1/api-keys/key_1')).toEqual(['DELETE']);
    expect(routes.allowed('/api/v1/api-keys/key_1/rotate')).toEqual(['POST']);
    expect(routes.allowed('/api/v1/api-keys/a/b/rotate')).toEqual([]);
    expect(routes.allowed('/api/v1/nothing')).toEqual([]);
  });
});
