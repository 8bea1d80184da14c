import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../contract/openapi';
import { API_ROUTE_IDS, API_ROUTES, type ApiRouteId } from '../../contract/routes';
import { apiRoute, guardApiRoutes, routerPath } from './apiRoutes';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** A guarded app with a handler for every id of the table except `skip`. */
function guardedApp(skip: ApiRouteId[] = []): FastifyInstance {
  app = Fastify();
  guardApiRoutes(app);
  for (const id of API_ROUTE_IDS) if (!skip.includes(id)) apiRoute(app, id, {}, async () => ({ id }));
  return app;
}

describe('the API route table', () => {
  it('turns OpenAPI path parameters into the router form', () => {
    expect(routerPath('/api/v1/api-keys/{id}/rotate')).toBe('/api/v1/api-keys/:id/rotate');
    expect(routerPath('/api/v1/projects/{projectId}/images/{imageId}')).toBe('/api/v1/projects/:projectId/images/:imageId');
    expect(routerPath('/api/v1/pvs')).toBe('/api/v1/pvs');
  });

  it('serves each route of the table at its method and path', async () => {
    const server = guardedApp();
    await server.ready();
    const response = await server.inject({ method: 'DELETE', url: '/api/v1/api-keys/key_1' });
    expect(response.json()).toEqual({ id: 'revokeApiKey' });
    expect((await server.inject({ method: 'GET', url: '/api/v1/api-keys' })).json()).toEqual({ id: 'listApiKeys' });
    expect((await server.inject({ method: 'POST', url: '/api/v1/api-keys' })).json()).toEqual({ id: 'createApiKey' });
  });

  it('documents exactly the routes of the table in OpenAPI, each under its method and path', () => {
    const documented = Object.entries(buildOpenApiDocument().paths as Record<string, object>).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const table = API_ROUTE_IDS.map((id) => `${API_ROUTES[id].method} ${API_ROUTES[id].path}`);
    expect(documented).toEqual(table);
  });

  it('refuses a route under /api/ that the table lacks', async () => {
    const server = guardedApp();
    const start = async () => {
      await server.register(async (scope) => {
        scope.get('/api/v1/datasets', async () => []);
      });
      await server.ready();
    };
    await expect(start()).rejects.toThrow(/GET \/api\/v1\/datasets is not in the API's route table/);
  });

  it('refuses a path of the table under another method', async () => {
    const server = guardedApp();
    expect(() => server.put('/api/v1/pvs', async () => ({}))).toThrow(/PUT \/api\/v1\/pvs is not in the API's route table/);
  });

  it('refuses to start while a route of the table has no handler', async () => {
    const server = guardedApp(['health', 'rotateApiKey']);
    await expect(server.ready()).rejects.toThrow('rotateApiKey (POST /api/v1/api-keys/:id/rotate), health (GET /api/v1/health)');
  });

  it('leaves routes outside /api/ alone', async () => {
    const server = guardedApp();
    server.get('/docs', async () => 'docs');
    await server.ready();
    expect((await server.inject({ method: 'GET', url: '/docs' })).body).toBe('docs');
  });
});
