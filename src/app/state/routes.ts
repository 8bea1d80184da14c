/** Hash routes: the SPA is served as static files, so the path never changes. */
export type Page = 'studio' | 'account' | 'keys' | 'credits';

export function pageFromHash(hash: string): Page {
  const name = hash.replace(/^#\/?/, '').split(/[/?]/)[0];
  return name === 'account' || name === 'keys' || name === 'credits' ? name : 'studio';
}

export function hashForPage(page: Page): string {
  return page === 'studio' ? '#/' : `#/${page}`;
}
