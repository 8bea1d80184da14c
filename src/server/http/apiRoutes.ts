/**
 * Routes under /api/ are registered by their id in the contract's route table
 * (src/contract/routes.ts), which the OpenAPI document is built from. `apiRoute` takes the method
 * and path from the table; `guardApiRoutes` makes the server refuse to start when a route under
 * /api/ is registered that the table lacks, or an entry of the table has no handler — so the
 * document and the routes cannot disagree.
 */
import type { FastifyInstance, RouteGenericInterface, RouteHandlerMethod, RouteShorthandOptions } from 'fastify';
import { API_ROUTES, API_ROUTE_IDS, type ApiRouteId } from '../../contract/routes';

/** `/api/v1/api-keys/{id}` (OpenAPI) → `/api/v1/api-keys/:id` (Fastify's router). */
export function routerPath(path: string): string {
  return path.replace(/\{([^}/]+)\}/g, ':$1');
}

const key = (method: string, url: string) => `${method.toUpperCase()} ${url}`;

/** Registers the handler of route `id` of the table, with its method and path. */
export function apiRoute<Route extends RouteGenericInterface = RouteGenericInterface>(
  app: FastifyInstance,
  id: ApiRouteId,
  options: RouteShorthandOptions,
  handler: RouteHandlerMethod<any, any, any, Route>,
): void {
  const { method, path } = API_ROUTES[id];
  app.route<Route>({ ...options, method, url: routerPath(path), handler });
}

/**
 * From now on, a route under /api/ outside the table fails its registration, and `app.ready()`
 * fails while an entry of the table has no handler. Call before registering any route.
 */
export function guardApiRoutes(app: FastifyInstance): void {
  const expected = new Map(API_ROUTE_IDS.map((id) => [key(API_ROUTES[id].method, routerPath(API_ROUTES[id].path)), id]));
  const registered = new Set<string>();
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/')) return;
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      // Fastify adds a HEAD route beside every GET on its own.
      if (method.toUpperCase() === 'HEAD') continue;
      const name = key(method, route.url);
      if (!expected.has(name)) {
        throw new Error(`${name} is not in the API's route table: add it to src/contract/routes.ts, describe it in src/contract/openapi.ts, and register it with apiRoute()`);
      }
      registered.add(name);
    }
  });
  app.addHook('onReady', async () => {
    const unserved = [...expected].filter(([name]) => !registered.has(name)).map(([name, id]) => `${id} (${name})`);
    if (unserved.length) throw new Error(`routes of the API's route table with no handler: ${unserved.join(', ')}`);
  });
}
