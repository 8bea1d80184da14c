/**
 * The route table of the HTTP API: every route under /api/, by id. It is the one place a route's
 * method and path are written. The server registers each handler by its id
 * (src/server/http/apiRoutes.ts, which refuses to start when a route under /api/ is missing here or
 * an entry here has no handler), and the OpenAPI document (./openapi.ts) must describe every id, so
 * a route cannot be served undocumented nor documented unserved.
 *
 * Paths are written as OpenAPI writes them (`{id}`); the server turns them into its router's form.
 * The order is the order of the OpenAPI document and of the /docs page.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ApiRoute {
  method: HttpMethod;
  path: `/api/${string}`;
}

export const API_ROUTES = {
  pvs: { method: 'POST', path: '/api/v1/pvs' },
  segment: { method: 'POST', path: '/api/v1/segment' },
  everything: { method: 'POST', path: '/api/v1/everything' },
  embeddings: { method: 'POST', path: '/api/v1/embeddings' },
  signup: { method: 'POST', path: '/api/v1/auth/signup' },
  login: { method: 'POST', path: '/api/v1/auth/login' },
  logout: { method: 'POST', path: '/api/v1/auth/logout' },
  account: { method: 'GET', path: '/api/v1/account' },
  listApiKeys: { method: 'GET', path: '/api/v1/api-keys' },
  createApiKey: { method: 'POST', path: '/api/v1/api-keys' },
  rotateApiKey: { method: 'POST', path: '/api/v1/api-keys/{id}/rotate' },
  revokeApiKey: { method: 'DELETE', path: '/api/v1/api-keys/{id}' },
  creditPackages: { method: 'GET', path: '/api/v1/credit-packages' },
  creditPurchases: { method: 'POST', path: '/api/v1/credit-purchases' },
  stripeWebhook: { method: 'POST', path: '/api/v1/stripe/webhook' },
  createProject: { method: 'POST', path: '/api/v1/projects' },
  listProjects: { method: 'GET', path: '/api/v1/projects' },
  getProject: { method: 'GET', path: '/api/v1/projects/{projectId}' },
  updateProjectClasses: { method: 'PUT', path: '/api/v1/projects/{projectId}/classes' },
  addProjectImage: { method: 'POST', path: '/api/v1/projects/{projectId}/images' },
  listProjectImages: { method: 'GET', path: '/api/v1/projects/{projectId}/images' },
  deleteProjectImage: { method: 'DELETE', path: '/api/v1/projects/{projectId}/images/{imageId}' },
  projectImageFile: { method: 'GET', path: '/api/v1/projects/{projectId}/images/{imageId}/file' },
  projectImageThumbnail: { method: 'GET', path: '/api/v1/projects/{projectId}/images/{imageId}/thumbnail' },
  readProjectAnnotations: { method: 'GET', path: '/api/v1/projects/{projectId}/annotations' },
  readAnnotations: { method: 'GET', path: '/api/v1/projects/{projectId}/images/{imageId}/annotations' },
  writeAnnotations: { method: 'PUT', path: '/api/v1/projects/{projectId}/images/{imageId}/annotations' },
  listProjectMembers: { method: 'GET', path: '/api/v1/projects/{projectId}/members' },
  addProjectMember: { method: 'POST', path: '/api/v1/projects/{projectId}/members' },
  removeProjectMember: { method: 'DELETE', path: '/api/v1/projects/{projectId}/members/{email}' },
  exportProject: { method: 'GET', path: '/api/v1/projects/{projectId}/export' },
  assignProjectImage: { method: 'PUT', path: '/api/v1/projects/{projectId}/images/{imageId}/assignee' },
  listInvitations: { method: 'GET', path: '/api/v1/invitations' },
  joinProject: { method: 'POST', path: '/api/v1/projects/{projectId}/join' },
  createJob: { method: 'POST', path: '/api/v1/projects/{projectId}/jobs' },
  listJobs: { method: 'GET', path: '/api/v1/projects/{projectId}/jobs' },
  getJob: { method: 'GET', path: '/api/v1/projects/{projectId}/jobs/{jobId}' },
  cancelJob: { method: 'DELETE', path: '/api/v1/projects/{projectId}/jobs/{jobId}' },
  projectEvents: { method: 'GET', path: '/api/v1/projects/{projectId}/events' },
  readLearnedModel: { method: 'GET', path: '/api/v1/projects/{projectId}/learned' },
  writeLearnedModel: { method: 'PUT', path: '/api/v1/projects/{projectId}/learned' },
  openapi: { method: 'GET', path: '/api/v1/openapi.json' },
  health: { method: 'GET', path: '/api/v1/health' },
} as const satisfies Record<string, ApiRoute>;

export type ApiRouteId = keyof typeof API_ROUTES;

/** The ids of the table, in its order. */
export const API_ROUTE_IDS = Object.keys(API_ROUTES) as ApiRouteId[];

/** The OpenAPI `paths` object: each route's operation under its path and lower-case method. */
export function openApiPaths<Operation>(operations: Record<ApiRouteId, Operation>): Record<string, Record<string, Operation>> {
  const paths: Record<string, Record<string, Operation>> = {};
  for (const id of API_ROUTE_IDS) {
    const { method, path } = API_ROUTES[id];
    (paths[path] ??= {})[method.toLowerCase()] = operations[id];
  }
  return paths;
}
