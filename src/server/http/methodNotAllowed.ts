/**
 * Which methods a path answers, from the routes as registered: a request for a known API path with
 * another method gets 405 with `Allow`, not 404. Fastify's router only says "not found".
 */
import type { FastifyInstance } from 'fastify';

export class RouteMethods {
  private readonly routes: { pattern: RegExp; methods: Set<string> }[] = [];

  /** Records every route added to `app` from now on (call before registering routes). */
  watch(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      this.add(route.url, methods);
    });
  }

  add(url: string, methods: readonly string[]): void {
    // Path parameters (":id") match one segment; a wildcard ("*") anything.
    const source = url
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    const pattern = new RegExp(`^${source}$`);
    let entry = this.routes.find((r) => r.pattern.source === pattern.source);
    if (!entry) this.routes.push((entry = { pattern, methods: new Set() }));
    for (const method of methods) entry.methods.add(method.toUpperCase());
  }

  /** The methods `path` answers, sorted; empty when no route matches it. */
  allowed(path: string): string[] {
    const methods = new Set<string>();
    for (const route of this.routes) if (route.pattern.test(path)) route.methods.forEach((m) => methods.add(m));
    return [...methods].sort();
  }
}
