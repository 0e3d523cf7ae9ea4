import type { TestApp, TestProject } from '../helpers/app.ts';
import { world, type WorldField } from '../helpers/world.ts';

/** A project with collections made straight in the database, and short request helpers for its entries. */
export async function contentProject(t: TestApp, opts: { locales?: string[] } = {}) {
  const w = await world({ app: t, project: { locales: opts.locales ?? ['en'] } });
  const p: TestProject = w.p;
  const collection = (slug: string, fields: WorldField[], extra: { isSingleton?: boolean } = {}) => w.collection({ slug, fields, ...extra });
  const req = (method: string, url: string, body?: unknown, headers = p.headers) => t.request({ method, url, headers, body });
  return {
    p,
    collection,
    req,
    create: (slug: string, body: unknown, headers = p.headers) => req('POST', `/api/${slug}`, body, headers),
    get: (slug: string, uuid: string, query = '', headers = p.headers) => req('GET', `/api/${slug}/${uuid}${query}`, undefined, headers),
    list: (slug: string, query = '', headers = p.headers) => req('GET', `/api/${slug}${query}`, undefined, headers),
    patch: (slug: string, uuid: string, body: unknown, headers = p.headers) => req('PATCH', `/api/${slug}/${uuid}`, body, headers),
    put: (slug: string, uuid: string, body: unknown, headers = p.headers) => req('PUT', `/api/${slug}/${uuid}`, body, headers),
    del: (slug: string, uuid: string, query = '', headers = p.headers) => req('DELETE', `/api/${slug}/${uuid}${query}`, undefined, headers),
  };
}
