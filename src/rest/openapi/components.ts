/**
 * JSON Schemas (OpenAPI 3.1) of every REST success body, named in `components.schemas` and referred
 * to by the route table (`response` on each route). They mirror the serializers (entries/reads/serialize.ts,
 * collections/serialize.ts, assets/serialize.ts, entries/versions/serialize.ts, webhooks/serialize.ts, releases/model.ts,
 * rest/paginator.ts); test/rest/openapi*.test.ts checks real bodies against them.
 */

export type JsonSchema = Record<string, unknown>;

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const bool = { type: 'boolean' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const nullable = (s: JsonSchema): JsonSchema => ({ ...s, type: [s.type as string, 'null'] });
const object = (properties: Record<string, JsonSchema>, optional: string[] = []): JsonSchema => ({
  type: 'object',
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  properties,
});
const anyJson: JsonSchema = {};

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const arrayOf = (item: JsonSchema): JsonSchema => ({ type: 'array', items: item });

/** The entry resource with `fields` given by `fieldsSchema` (a free object in the generic document). */
export function entrySchema(fieldsSchema: JsonSchema): JsonSchema {
  return object(
    {
      id: int,
      uuid: { type: 'string', format: 'uuid' },
      locale: str,
      state: { type: 'string', enum: ['draft', 'published'] },
      published_at: nullable(dateTime),
      published_version_id: nullable(int),
      published_version_number: nullable(int),
      is_draft_dirty: bool,
      fields: fieldsSchema,
      created_at: { ...dateTime, description: 'With `timestamps`, and on every write.' },
      updated_at: { ...dateTime, description: 'With `timestamps`, and on every write.' },
      deleted_at: { ...dateTime, description: 'Reads of the trash only.' },
      meta: { ...object({ requested_locale: str }), description: 'Reads with `fallback=true` only: the locale asked for; `locale` is the one that answered.' },
    },
    ['created_at', 'updated_at', 'deleted_at', 'meta'],
  );
}

/** Laravel's resource-collection paginator over `item`. */
export function paginatorSchema(item: JsonSchema): JsonSchema {
  return object({
    data: arrayOf(item),
    links: object({ first: str, last: str, prev: nullable(str), next: nullable(str) }),
    meta: object({ current_page: int, from: nullable(int), last_page: int, path: str, per_page: int, to: nullable(int), total: int }),
  });
}

/** The list route answers one of four shapes, chosen by the query (`count`, `first`, `paginate`, none). */
export function entryListSchema(entry: JsonSchema): JsonSchema {
  return {
    description: 'A paginator with `paginate`; `{ count }` with `count`; one entry (or a singleton) with `first`; otherwise an array.',
    oneOf: [paginatorSchema(entry), object({ count: int }), arrayOf(entry), entry],
  };
}

const message = { type: 'string', description: 'A human-readable confirmation.' } as const;
const createdBy = nullable(object({ id: int, name: str }));
const versionItem = object({
  uuid: str,
  version_number: int,
  label: nullable(str),
  description: nullable(str),
  locale: str,
  translation_group_id: nullable(int),
  published_at: nullable(dateTime),
  created_at: dateTime,
  updated_at: dateTime,
  created_by: createdBy,
  is_current_published: bool,
});
const field = object({
  id: int,
  uuid: str,
  type: str,
  label: str,
  name: str,
  description: nullable(str),
  placeholder: nullable(str),
  options: { type: 'object' },
  validations: { type: 'object' },
  order: int,
  parent_field_id: nullable(int),
});
const asset = object({
  id: int,
  uuid: str,
  filename: str,
  original_filename: str,
  mime_type: str,
  size: { type: 'string', description: 'Human readable, e.g. "1.2 MB".' },
  bytes: int,
  url: str,
  original_url: nullable(str),
  thumbnail_url: nullable(str),
  metadata: { type: ['object', 'null'] },
  created_at: dateTime,
  updated_at: dateTime,
});
const collectionProps = { id: int, uuid: str, name: str, slug: str, is_singleton: bool, order: int, created_at: dateTime, updated_at: dateTime };
const project = object({
  uuid: str,
  name: str,
  description: nullable(str),
  plan: str,
  default_locale: str,
  locales: arrayOf(str),
  locale_fallbacks: { type: 'object', additionalProperties: str, description: 'Per locale, the locale its fallback reads try next; locales without one are absent.' },
  created_at: dateTime,
  updated_at: dateTime,
});
const fieldValue = object({ field: str, value: anyJson });

/** `components.schemas` of every document. */
const endUser = object({ id: int, uuid: str, email: str, display_name: nullable(str), email_verified_at: nullable(dateTime), metadata: anyJson });
const adminUser: JsonSchema = {
  allOf: [endUser, object({ disabled: bool, disabled_at: nullable(dateTime), last_login_at: nullable(dateTime), created_at: dateTime, updated_at: dateTime })],
};
const apiKey = object(
  { id: int, uuid: str, name: str, key_prefix: str, scopes: arrayOf(str), expires_at: nullable(dateTime), last_used_at: nullable(dateTime), revoked_at: nullable(dateTime), created_at: dateTime },
  ['uuid', 'revoked_at', 'created_at'],
);

const stringList = arrayOf(str);
const tokenScope = {
  collections: { ...nullable(stringList), description: 'Collection slugs it may act on; null: all' },
  fields: { ...nullable({ type: 'object', additionalProperties: stringList }), description: 'Per collection slug, the only fields it may read and write; null: all' },
  expires_at: nullable(dateTime),
  delivery: { type: 'boolean', description: 'A delivery token: published reads only, answers cacheable by a CDN' },
};
const apiToken = object({ id: int, name: str, prefix: str, abilities: stringList, ...tokenScope, last_used_at: nullable(dateTime), created_at: dateTime, revoked_at: nullable(dateTime) });
const previewToken = object({ id: int, prefix: str, collections: tokenScope.collections, release: nullable(str), expires_at: nullable(dateTime), last_used_at: nullable(dateTime), created_at: dateTime, revoked_at: nullable(dateTime) });

export const COMPONENT_SCHEMAS: Record<string, JsonSchema> = {
  ApiToken: apiToken,
  ApiTokenResponse: object({ data: ref('ApiToken') }),
  ApiTokenList: object({ data: arrayOf(ref('ApiToken')) }),
  ApiTokenCreated: object({ data: object({ id: int, name: str, prefix: str, token: str, abilities: stringList, ...tokenScope }) }),
  PreviewToken: previewToken,
  PreviewTokenResponse: object({ data: ref('PreviewToken') }),
  PreviewTokenList: object({ data: arrayOf(ref('PreviewToken')) }),
  PreviewTokenCreated: object({ data: object({ id: int, token: str, expires_at: dateTime }) }),
  EndUser: endUser,
  AdminUser: adminUser,
  AdminUserPage: object({ data: arrayOf(ref('AdminUser')), meta: object({ current_page: int, per_page: int, total: int, last_page: int }) }),
  EndUserTokens: object(
    { access_token: str, token_type: str, expires_at: dateTime, refresh_token: str, refresh_token_expires_at: dateTime, user: ref('EndUser') },
    ['refresh_token', 'refresh_token_expires_at'],
  ),
  EndUserMe: object({ user: ref('EndUser') }),
  UserApiKey: apiKey,
  UserApiKeyList: object({ data: arrayOf(ref('UserApiKey')) }),
  UserApiKeyCreated: { allOf: [ref('UserApiKey'), object({ plain_text_key: str })] },
  Error: object({ message: str, errors: { type: 'object', additionalProperties: arrayOf(str), description: 'Offending keys (e.g. `data.title`, `items.0.locale`) to messages.' } }, ['errors']),
  Message: object({ message }),
  Entry: entrySchema({ type: 'object', additionalProperties: true, description: 'Field values by field name (relations nested one level, media as assets).' }),
  EntryPaginator: paginatorSchema(ref('Entry')),
  EntryList: entryListSchema(ref('Entry')),
  EntryDeleted: object({ message }),
  TrashEmptied: object({ message, deleted: int }),
  TranslationLinked: object({ message, translation_group_id: int }),
  Published: object({ message, version_number: int, entry: ref('Entry') }),
  VersionItem: versionItem,
  VersionList: object({ data: arrayOf(ref('VersionItem')) }),
  VersionDetail: {
    allOf: [
      ref('VersionItem'),
      object({ snapshot: object({ fields: { type: 'object', additionalProperties: true }, meta: object({ locale: str, translation_group_id: nullable(int) }) }) }),
    ],
  },
  Reverted: object({ message, version: ref('VersionItem'), entry: ref('Entry'), skipped: arrayOf(object({ field: str, uuid: str })) }),
  VersionDiff: object({ from: int, to: int, added: arrayOf(fieldValue), removed: arrayOf(fieldValue), changed: arrayOf(object({ field: str, from: anyJson, to: anyJson })) }),
  BulkWriteResult: object({ message, data: arrayOf(ref('Entry')) }),
  BulkDeleteResult: object({ message, count: { type: 'integer', description: 'Entries deleted; unknown UUIDs are skipped.' }, force: bool }),
  Field: field,
  Collection: object({ ...collectionProps, fields: arrayOf(ref('Field')) }, ['fields']),
  CollectionList: arrayOf(ref('Collection')),
  Project: project,
  ProjectWithModel: { allOf: [ref('Project'), object({ collections: arrayOf(ref('Collection')) }, ['collections'])] },
  Asset: asset,
  AssetPaginator: paginatorSchema(ref('Asset')),
  Webhook: object({
    uuid: str,
    name: str,
    description: nullable(str),
    url: str,
    events: arrayOf(str),
    sources: arrayOf(str),
    payload: bool,
    status: bool,
    collections: arrayOf(object({ id: int, uuid: str, name: str, slug: str })),
    has_secret: bool,
    consecutive_failures: int,
    disabled_reason: nullable(str),
    disabled_at: nullable(dateTime),
    created_at: dateTime,
    updated_at: dateTime,
  }),
  WebhookList: arrayOf(ref('Webhook')),
  WebhookLog: object({
    id: int,
    delivery_id: str,
    attempt: int,
    action: str,
    url: str,
    status: str,
    request: anyJson,
    response: anyJson,
    duration_ms: nullable(int),
    created_at: dateTime,
  }),
  WebhookLogPage: object({
    data: arrayOf(ref('WebhookLog')),
    current_page: int,
    per_page: int,
    total: int,
    last_page: int,
    from: nullable(int),
    to: nullable(int),
  }),
  QueuedSend: object({ message, delivery_id: str, attempt: int }),
  ReleaseItem: object({
    id: str,
    collection: str,
    uuid: { type: 'string', format: 'uuid' },
    action: { type: 'string', enum: ['publish', 'unpublish'] },
    locale: nullable(str),
    version: { ...nullable(int), description: 'The version the release published (publish items of a published release).' },
  }),
  Release: object({
    id: str,
    title: str,
    description: nullable(str),
    status: { type: 'string', enum: ['open', 'scheduled', 'published', 'failed'] },
    publish_at: nullable(dateTime),
    published_at: nullable(dateTime),
    items: arrayOf(ref('ReleaseItem')),
    errors: { type: ['object', 'null'], additionalProperties: arrayOf(str), description: 'The last failed publish: `items.<n>.<field>` to messages.' },
    created_at: dateTime,
    updated_at: dateTime,
  }),
  ReleaseResult: object({ data: ref('Release') }),
  ReleasePaginator: paginatorSchema(ref('Release')),
  Schedule: object({
    id: { type: 'string', format: 'uuid' },
    kind: { type: 'string', enum: ['entry', 'release'] },
    action: { type: 'string', enum: ['publish', 'unpublish'] },
    at: dateTime,
    status: { type: 'string', enum: ['scheduled', 'running', 'done', 'failed', 'cancelled'] },
    uuid: nullable(str),
    locale: nullable(str),
    release_id: nullable(str),
    errors: { type: ['object', 'null'], additionalProperties: arrayOf(str), description: 'Why a failed schedule did not run.' },
    created_at: dateTime,
    updated_at: dateTime,
    ran_at: nullable(dateTime),
  }),
  ScheduleData: object({ data: ref('Schedule') }),
  ScheduleList: object({ data: arrayOf(ref('Schedule')) }),
  OpenApiDocument: { type: 'object', description: 'An OpenAPI 3.1 document.', additionalProperties: true },
};

/** What a route declares about its success answer (src/rest/route.ts `response`). */
export interface RouteResponse {
  /** The JSON Schema of the body, usually `ref('Name')`; absent for 204 and non-JSON answers. */
  schema?: JsonSchema;
  /** Media type when not JSON (the docs page). */
  contentType?: string;
  description?: string;
}
