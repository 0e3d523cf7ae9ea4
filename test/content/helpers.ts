import type { TestApp, TestProject } from '../helpers/app.ts';
import { createCollection, type FieldSpec } from '../helpers/fixtures.ts';

/** A project with collections made straight in the database, and short request helpers for its entries. */
export async function contentProject(t: TestApp, opts: { locales?: string[] } = {}) {
  const p: TestProject = await t.project({ locales: opts.locales ?? ['en'] });
  const collection = (slug: string, fields: FieldSpec[], extra: { isSingleton?: boolean } = {}) =>
    createCollection(t.database.prisma, p.id, { slug, fields, ...extra });
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
