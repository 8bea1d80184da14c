/** GET /api/v1/openapi.json, GET /docs (the same document as plain HTML, nothing external), /problems/:slug. */
import type { FastifyInstance } from 'fastify';
import { buildOpenApiDocument } from '../../../contract/openapi';
import { PROBLEM_TYPES, problemTypeUri, type ProblemSlug } from '../../../contract/problems';
import { apiRoute } from '../apiRoutes';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
/** Backticks in descriptions become <code>. */
const prose = (s: string) => escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');

type Json = Record<string, any>;

export function renderDocsHtml(doc: Json): string {
  const parts: string[] = [];
  const schemas = doc.components.schemas as Record<string, Json>;
  parts.push(`<h1>${escapeHtml(doc.info.title)} <small>v${escapeHtml(doc.info.version)}</small></h1>`);
  parts.push(`<p>${prose(doc.info.description)}</p>`);
  parts.push('<p>Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1). Authenticate with <code>Authorization: Bearer &lt;API key&gt;</code>.</p>');
  parts.push('<h2>Endpoints</h2><nav><ul>');
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const method of Object.keys(ops)) {
      parts.push(`<li><a href="#${method}-${escapeHtml(path)}"><code>${method.toUpperCase()} ${escapeHtml(path)}</code></a> — ${prose(ops[method].summary ?? '')}</li>`);
    }
  }
  parts.push('</ul></nav>');
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(ops as Record<string, Json>)) {
      parts.push(`<section id="${method}-${escapeHtml(path)}"><h3><code>${method.toUpperCase()} ${escapeHtml(path)}</code></h3>`);
      parts.push(`<p>${prose(op.summary ?? '')}</p>`);
      const security = (op.security as Json[] | undefined)?.map((s) => Object.keys(s)[0]).join(' or ');
      parts.push(`<p><b>Auth:</b> ${security ? escapeHtml(security) : 'none'}</p>`);
      for (const p of (op.parameters as Json[] | undefined) ?? []) {
        parts.push(`<p><b>${escapeHtml(p.in)} <code>${escapeHtml(p.name)}</code></b>${p.required ? ' (required)' : ''}: ${prose(p.description ?? '')}</p>`);
      }
      const body = op.requestBody?.content?.['application/json']?.schema?.$ref as string | undefined;
      if (body) {
        const name = body.split('/').pop()!;
        parts.push(`<details><summary>Request body: <code>${name}</code></summary><pre>${escapeHtml(JSON.stringify(schemas[name], null, 2))}</pre></details>`);
      }
      parts.push('<table><tr><th>Status</th><th>Meaning</th></tr>');
      for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
        const ref = (response.content?.['application/json']?.schema?.$ref as string | undefined)?.split('/').pop();
        const schema = ref ? `<details><summary><code>${ref}</code></summary><pre>${escapeHtml(JSON.stringify(schemas[ref], null, 2))}</pre></details>` : '';
        parts.push(`<tr><td>${status}</td><td>${prose(response.description ?? '')}${schema}</td></tr>`);
      }
      parts.push('</table></section>');
    }
  }
  parts.push('<h2 id="problems">Problem types</h2><p>Errors are <code>application/problem+json</code> (RFC 9457) with <code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code>, <code>instance</code> and <code>requestId</code>.</p><table><tr><th>type</th><th>status</th><th>meaning</th></tr>');
  for (const [slug, info] of Object.entries(PROBLEM_TYPES)) {
    parts.push(`<tr id="problem-${slug}"><td><code>${problemTypeUri(slug as ProblemSlug)}</code></td><td>${info.status}</td><td><b>${escapeHtml(info.title)}.</b> ${prose(info.description)}</td></tr>`);
  }
  parts.push('</table>');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Maskwright API</title><style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
code,pre{font-family:ui-monospace,monospace;font-size:13px}pre{background:#f4f4f4;padding:.75rem;overflow:auto}
table{border-collapse:collapse;width:100%;margin:.5rem 0}td,th{border:1px solid #ddd;padding:.35rem .5rem;text-align:left;vertical-align:top}
section{border-top:1px solid #eee;margin-top:1.5rem}h3 code{font-size:1rem}small{color:#777;font-weight:normal}
</style></head><body>${parts.join('\n')}</body></html>`;
}

export async function docsRoutes(app: FastifyInstance): Promise<void> {
  const doc = buildOpenApiDocument();
  const json = JSON.stringify(doc);
  const html = renderDocsHtml(doc);
  apiRoute(app, 'openapi', {}, async (_request, reply) => reply.type('application/json').send(json));
  app.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(html));
  app.get<{ Params: { slug: string } }>('/problems/:slug', async (request, reply) => {
    const slug = request.params.slug in PROBLEM_TYPES ? request.params.slug : '';
    return reply.redirect(slug ? `/docs#problem-${slug}` : '/docs#problems', 302);
  });
}
