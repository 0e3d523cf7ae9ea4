import type { TestApp } from '../../helpers/app.ts';
import { world, authors, collection, field } from '../../helpers/world.ts';

export const BULK_URL = (slug: string) => `/api/bulk/${slug}/entries`;

/**
 * A project (locales en, de) with `authors`, `posts` (required title, unique code, number, relation)
 * and the singleton `settings`, plus short helpers for the bulk routes and for reading what a request
 * left in the database.
 */
export async function bulkProject(t: TestApp, opts: { plan?: 'basic' | 'grow' | 'pro' } = {}) {
  const { p, c } = await world({
    app: t,
    project: { locales: ['en', 'de'], ...(opts.plan ? { plan: opts.plan } : {}) },
    collections: [
      authors(),
      collection('posts', [
        field.required('title'),
        field.text('code', { validations: { unique: { status: true } } }),
        field.number('views'),
        field.relation('author', 'authors'),
      ]),
      collection('settings', [field.text('site-name')], { isSingleton: true }),
    ],
  });
  const db = t.database.prisma;
  const [authorsRow, posts, settings] = [c.authors, c.posts, c.settings];

  const req = (method: string, url: string, body?: unknown, headers = p.headers) => t.request({ method, url, headers, body });
  return {
    p,
    ids: { authors: authorsRow.id, posts: posts.id, settings: settings.id },
    req,
    create: (slug: string, body: unknown, headers = p.headers) => req('POST', BULK_URL(slug), body, headers),
    update: (slug: string, body: unknown, headers = p.headers) => req('PATCH', BULK_URL(slug), body, headers),
    remove: (slug: string, body: unknown, headers = p.headers) => req('DELETE', BULK_URL(slug), body, headers),
    /** Creates one entry through the single-entry API. */
    single: async (slug: string, body: Record<string, unknown>) => {
      const res = await req('POST', `/api/${slug}`, body);
      if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
      return res.body as { uuid: string; id: number };
    },
    /** Rows of this project, for all-or-nothing checks. */
    counts: async () => ({
      entries: await db.entry.count({ where: { projectId: p.id } }),
      versions: await db.entryVersion.count({ where: { entry: { projectId: p.id } } }),
      outbox: await db.outboxEvent.count({ where: { projectId: p.id } }),
    }),
    events: (uuids: string[]) =>
      db.outboxEvent.findMany({ where: { projectId: p.id, entryUuid: { in: uuids } }, orderBy: { id: 'asc' } }),
    row: (uuid: string) => db.entry.findUniqueOrThrow({ where: { uuid } }),
  };
}

export type BulkProject = Awaited<ReturnType<typeof bulkProject>>;

/** `n` create items for `posts`. */
export const postItems = (n: number, extra: (i: number) => Record<string, unknown> = () => ({})) =>
  Array.from({ length: n }, (_, i) => ({ data: { title: `Post ${i}`, views: i }, ...extra(i) }));
