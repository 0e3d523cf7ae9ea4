import { z } from 'zod';
import { ref } from './openapi/components.ts';
import { defineRoutes, type RestInput, type RestResult } from './route.ts';
import type { Ctx } from '../context.ts';
import { createEntry, deleteEntry, getEntry, updateEntry } from '../entries/operations/entry.ts';
import { linkTranslation } from '../entries/values/translations.ts';
import { emptyTrash, listTrash, restoreEntry } from '../entries/operations/trash.ts';
import { countEntries, getFirstEntry, listEntriesPage, listEntriesRange, openEntryList } from '../entries/reads/list.ts';
import { firstString } from '../text.ts';
import { isFlag, parseListQuery, parseReadOptions, parseTrashQuery } from './list-query.ts';
import { laravelPage } from './paginator.ts';
import { withPublishedEtag } from '../edge/read-cache/published-rest-read.ts';
import { withReleasePreview } from './release-preview.ts';

const writeBody = z.object({ data: z.unknown().optional(), locale: z.unknown().optional(), state: z.unknown().optional() }).passthrough();
const linkBody = z.object({ translation_entry_uuid: z.unknown().optional() }).passthrough();

/** Query parameters, for the OpenAPI document (the handlers parse the query themselves). */
const readQuery = {
  state: z.enum(['published', 'draft']).optional().describe('published (default): the live snapshot; draft: the working draft'),
  locale: z.string().optional().describe('Only entries of this locale'),
  timestamps: z.string().optional().describe('Present: add created_at and updated_at'),
  exclude: z.string().optional().describe('Comma-separated field names left out of fields'),
  fallback: z.string().optional().describe("true: per translation group, the entry of the first locale along locale's fallback chain (default locale's chain without locale); meta.requested_locale says what was asked"),
  release: z.string().optional().describe('A release id: the content as it will be once that release is published (state is ignored; docs/releases.md)'),
};
const listQuery = z.object({
  ...readQuery,
  where: z.record(z.string(), z.unknown()).optional().describe('where[field][operator]=value; operators eq lt lte gt gte not like in not_in between not_between null not_null; where[or][0][...]'),
  sort: z.string().optional().describe('field:asc,other:desc'),
  search: z.string().optional().describe('Full-text search: words, "a phrase", -excluded, prefix*, or; ranked by relevance (meta.score) unless sort is given'),
  paginate: z.string().optional().describe('Page size (at most 100): answers a paginator'),
  page: z.string().optional(),
  limit: z.string().optional(),
  offset: z.string().optional(),
  count: z.string().optional().describe('Present: answer { count }'),
  first: z.string().optional().describe('Present: answer the first entry'),
});
const trashQuery = z.object({
  locale: readQuery.locale,
  timestamps: readQuery.timestamps,
  exclude: readQuery.exclude,
  where: listQuery.shape.where.describe('where[field][operator]=value on the working drafts, as the list takes it'),
  paginate: z.string().optional().describe('Page size (default 25, at most 100)'),
  page: z.string().optional(),
});
const getQuery = z.object({ ...readQuery, translation_locale: z.string().optional().describe("The linked translation in this locale") });

/** Request path for paginator links; absolute when PUBLIC_URL is configured. */
export function requestPath(ctx: Ctx, input: RestInput): string {
  const path = input.raw.url.split('?')[0];
  return `${(ctx.services.config.PUBLIC_URL ?? '').replace(/\/$/, '')}${path}`;
}

/** GET /api/{collection}: the answer the query string asks for. */
async function listEntriesRoute(ctx: Ctx, input: RestInput): Promise<RestResult> {
  const q = parseListQuery(input.query);
  const list = await openEntryList(ctx, input.params.collection, q.options);
  // A singleton answers its one entry whatever the paging, count or first ask (docs/entries.md).
  if (q.count && !list.isSingleton) return { body: { count: await countEntries(list) } };
  if (q.first || list.isSingleton) return { body: await getFirstEntry(list) };
  if (q.paginate !== undefined) {
    const page = await listEntriesPage(list, { page: q.page ?? 1, perPage: q.paginate });
    return { body: laravelPage(page.data, { ...page, path: requestPath(ctx, input), query: input.query }) };
  }
  // `offset` counts only with `limit` (docs/entries.md).
  return { body: await listEntriesRange(list, { limit: q.limit, offset: q.limit !== undefined ? q.offset : undefined }) };
}

/** GET /api/{collection}/{uuid}. */
async function getEntryRoute(ctx: Ctx, { params, query }: RestInput): Promise<RestResult> {
  return {
    body: await getEntry(ctx, params.collection, params.uuid, {
      ...parseReadOptions(query),
      locale: firstString(query.locale),
      translationLocale: firstString(query.translation_locale),
      withFallback: isFlag(query.fallback),
    }),
  };
}

/** Entry routes (docs/entries.md). They end in `/api/:collection...` catch-alls, so they go last in the table. */
export const contentRoutes = defineRoutes([
  {
    method: 'GET',
    url: '/api/:collection',
    successStatus: 200,
    response: { schema: ref('EntryList') },
    ability: 'read',
    summary: 'List entries (state, locale, fallback, where, sort, search, paginate/page, limit/offset, count, first, timestamps, exclude)',
    tags: ['entries'],
    query: listQuery,
    handler: withReleasePreview(listEntriesRoute, withPublishedEtag('entries.list', listEntriesRoute)),
  },
  {
    method: 'POST',
    url: '/api/:collection',
    successStatus: 201,
    response: { schema: ref('Entry') },
    ability: 'create',
    summary: 'Create an entry ({ data, locale?, state? }); state=published publishes on create',
    tags: ['entries'],
    body: writeBody,
    handler: async (ctx, { params, body, query }) => ({
      status: 201,
      body: await createEntry(ctx, params.collection, body as z.infer<typeof writeBody>, { timestamps: isFlag(query.timestamps) }),
    }),
  },
  // `trash` is never a UUID, and the router prefers a fixed segment to a parameter anyway, so these
  // two cannot be read as an entry; a collection whose slug is `trash` has its trash at /api/trash/trash.
  {
    method: 'GET',
    url: '/api/:collection/trash',
    successStatus: 200,
    response: { schema: ref('EntryPaginator') },
    ability: 'read',
    summary: "The collection's trashed entries (working drafts with deleted_at), newest first, as a paginator (paginate, page, locale, where, timestamps, exclude)",
    tags: ['entries'],
    query: trashQuery,
    handler: async (ctx, input) => {
      const r = await listTrash(ctx, input.params.collection, parseTrashQuery(input.query));
      return { body: laravelPage(r.data, { ...r, path: requestPath(ctx, input), query: input.query }) };
    },
  },
  {
    method: 'DELETE',
    url: '/api/:collection/trash',
    successStatus: 200,
    response: { schema: ref('TrashEmptied') },
    ability: 'delete',
    summary: "Empty the collection's trash: every trashed entry is deleted for good (content.deleted each)",
    tags: ['entries'],
    handler: async (ctx, { params }) => ({ body: await emptyTrash(ctx, params.collection) }),
  },
  {
    method: 'POST',
    url: '/api/:collection/:uuid/restore',
    successStatus: 200,
    response: { schema: ref('Entry') },
    ability: 'update',
    summary: 'Restore a trashed entry (singleton and unique rules checked again: 422; not in the trash: 409); emits content.restored',
    tags: ['entries'],
    handler: async (ctx, { params, query }) => ({ body: await restoreEntry(ctx, params.collection, params.uuid, { timestamps: isFlag(query.timestamps) }) }),
  },
  {
    method: 'GET',
    url: '/api/:collection/:uuid',
    successStatus: 200,
    response: { schema: ref('Entry') },
    ability: 'read',
    summary: 'Get an entry (state, locale, fallback, translation_locale, exclude, timestamps)',
    tags: ['entries'],
    query: getQuery,
    handler: withReleasePreview(getEntryRoute, withPublishedEtag('entries.get', getEntryRoute)),
  },
  {
    method: 'PUT',
    url: '/api/:collection/:uuid',
    successStatus: 200,
    response: { schema: ref('Entry') },
    ability: 'update',
    summary: 'Replace every custom field of an entry from data (missing fields are cleared)',
    tags: ['entries'],
    body: writeBody,
    handler: async (ctx, { params, body, query }) => ({
      body: await updateEntry(ctx, params.collection, params.uuid, body as z.infer<typeof writeBody>, 'replace', { timestamps: isFlag(query.timestamps) }),
    }),
  },
  {
    method: 'PATCH',
    url: '/api/:collection/:uuid',
    successStatus: 200,
    response: { schema: ref('Entry') },
    ability: 'update',
    summary: 'Update only the fields sent in data',
    tags: ['entries'],
    body: writeBody,
    handler: async (ctx, { params, body, query }) => ({
      body: await updateEntry(ctx, params.collection, params.uuid, body as z.infer<typeof writeBody>, 'patch', { timestamps: isFlag(query.timestamps) }),
    }),
  },
  {
    method: 'DELETE',
    url: '/api/:collection/:uuid',
    successStatus: 200,
    response: { schema: ref('EntryDeleted') },
    ability: 'delete',
    summary: 'Delete an entry: to the trash (content.trashed); ?force=1 deletes it for good, trashed or not (content.deleted)',
    tags: ['entries'],
    handler: async (ctx, { params, query }) => ({ body: await deleteEntry(ctx, params.collection, params.uuid, isFlag(query.force)) }),
  },
  {
    method: 'POST',
    url: '/api/:collection/:uuid/link-translation',
    successStatus: 200,
    response: { schema: ref('TranslationLinked') },
    ability: 'update',
    summary: 'Link another entry of the collection as a translation ({ translation_entry_uuid })',
    tags: ['entries'],
    body: linkBody,
    handler: async (ctx, { params, body }) => ({ body: await linkTranslation(ctx, params.collection, params.uuid, body as z.infer<typeof linkBody>) }),
  },
]);
