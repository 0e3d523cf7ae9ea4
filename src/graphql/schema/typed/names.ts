import pluralize from 'pluralize';

/**
 * The ONE naming rule of the typed GraphQL schema (docs/graphql.md, "Names"). Collection slugs and
 * field names are kebab-case and may be anything a CMS user types; GraphQL names must match
 * /^[_A-Za-z][_0-9A-Za-z]*$/, must not start with `__`, and must not clash with each other.
 *
 * 1. Words: the source is split on every character that is not an ASCII letter or digit.
 * 2. Case: types are PascalCase of the singular (`blog-posts` → `BlogPost`); fields and root
 *    operations are camelCase (`cover-image` → `coverImage`); enum values are UPPER_SNAKE_CASE.
 * 3. A name that would start with a digit gets a leading `_` (`2fa` → `_2fa`); an empty name
 *    becomes the kind's fallback (`Content`, `field`, `EMPTY`).
 * 4. Clash (with a GraphQL built-in, a core-schema type or root field, a system field, or a name
 *    already given out in the same namespace, first come first served): the kind's suffix is
 *    appended (`Content` for collection types, `Field` for fields), then a counter 2, 3, ... until
 *    the name is free. Generated helper names (`PostWhere`, `postsPage`...) only take the counter.
 * 5. Everything else about a collection derives from its final type name T: `t` (single query),
 *    plural(t) (list query; `tList` when the plural equals the singular), `createT`, `updateT`,
 *    `publishT`, `unpublishT`, `deleteT`, `revertT`, `trashedTs`, `restoreT`, `emptyTsTrash`,
 *    `bulkCreateTs`, `bulkUpdateTs`, `bulkDeleteTs`, and the helper types `TPage`, `TEdge`, `TWhere`,
 *    `TSort`, `TInput`, `TPatchInput`, `TRelationFilter`, `TBulkCreateItem`, `TBulkUpdateItem`,
 *    `TBulkPayload`, `T<Field>` for groups and enumerations. A collection's bulk names are claimed
 *    after its other derived names, so they never take a name those had before.
 */

const BUILT_IN_TYPES = ['String', 'Int', 'Float', 'Boolean', 'ID', 'Query', 'Mutation', 'Subscription'];

export function words(source: string): string[] {
  return source.split(/[^A-Za-z0-9]+/).filter(Boolean);
}

const upperFirst = (s: string): string => (s ? s[0].toUpperCase() + s.slice(1) : s);
const lowerFirst = (s: string): string => (s ? s[0].toLowerCase() + s.slice(1) : s);
const guardDigit = (s: string): string => (/^[0-9]/.test(s) ? `_${s}` : s);

export function pascalCase(source: string): string {
  return guardDigit(words(source).map(upperFirst).join(''));
}

export function camelCase(source: string): string {
  const ws = words(source);
  return guardDigit(ws.map((w, i) => (i === 0 ? lowerFirst(w) : upperFirst(w))).join(''));
}

export function enumValueName(source: string): string {
  const ws = words(source).map((w) => w.toUpperCase());
  return ws.length ? guardDigit(ws.join('_')) : 'EMPTY';
}

/** PascalCase singular of a slug: only the last word is singularised (`blog-posts` → `BlogPost`). */
export function singularTypeBase(slug: string): string {
  const ws = words(slug).map((w) => w.toLowerCase());
  if (ws.length === 0) return 'Content';
  ws[ws.length - 1] = pluralize.singular(ws[ws.length - 1]) || ws[ws.length - 1];
  return pascalCase(ws.join('-'));
}

/** Plural of a PascalCase type name, pluralising its last capitalised word. */
export function pluralOf(typeName: string): string {
  const m = /^(.*?)([A-Z]?[a-z0-9]*)$/.exec(typeName);
  const head = m?.[1] ?? '';
  const last = m?.[2] ?? typeName;
  if (!last) return typeName;
  const plural = pluralize.plural(last.toLowerCase()) || last.toLowerCase();
  return head + (last[0] === last[0].toUpperCase() ? upperFirst(plural) : plural);
}

/** Hands out unique names in one namespace (all types; one object's fields; one enum's values). */
export class NameRegistry {
  private readonly taken: Set<string>;

  constructor(reserved: Iterable<string> = []) {
    this.taken = new Set(reserved);
  }

  has(name: string): boolean {
    return this.taken.has(name) || name.startsWith('__');
  }

  reserve(name: string): void {
    this.taken.add(name);
  }

  /** Claims `base`, or `base + suffix`, or `base + suffix + separator + n`: the first that is free. */
  claim(base: string, suffix = '', separator = ''): string {
    let name = base;
    if (this.has(name) && suffix) name = base + suffix;
    for (let n = 2; this.has(name); n++) name = `${base}${suffix}${separator}${n}`;
    this.taken.add(name);
    return name;
  }
}

export function typeRegistry(coreTypeNames: Iterable<string>): NameRegistry {
  return new NameRegistry([...BUILT_IN_TYPES, ...coreTypeNames]);
}

/** Names of one collection's entry type and everything derived from it. */
export interface CollectionNames {
  type: string;
  page: string;
  edge: string;
  where: string;
  relationFilter: string;
  sort: string;
  input: string;
  patchInput: string;
  single: string;
  list: string;
  create: string;
  update: string;
  publish: string;
  unpublish: string;
  delete: string;
  revert: string;
  trashed: string;
  restore: string;
  emptyTrash: string;
  bulkCreate: string;
  bulkUpdate: string;
  bulkDelete: string;
  bulkCreateItem: string;
  bulkUpdateItem: string;
  bulkPayload: string;
}

/** Claims a collection's entry type name (all collections claim theirs before any helper name). */
export function claimCollectionType(slug: string, types: NameRegistry): string {
  return types.claim(singularTypeBase(slug), 'Content');
}

/**
 * Allocates the names derived from a collection's entry type name. Types come from the global type
 * registry; root fields from the query / mutation registries (which hold the core root fields).
 */
export function collectionNames(type: string, types: NameRegistry, queries: NameRegistry, mutations: NameRegistry): CollectionNames {
  const single = lowerFirst(type);
  let list = lowerFirst(pluralOf(type));
  if (list === single) list = `${single}List`;
  return {
    type,
    page: types.claim(`${type}Page`),
    edge: types.claim(`${type}Edge`),
    where: types.claim(`${type}Where`),
    relationFilter: types.claim(`${type}RelationFilter`),
    sort: types.claim(`${type}Sort`),
    input: types.claim(`${type}Input`),
    patchInput: types.claim(`${type}PatchInput`),
    single: queries.claim(single),
    list: queries.claim(list),
    create: mutations.claim(`create${type}`),
    update: mutations.claim(`update${type}`),
    publish: mutations.claim(`publish${type}`),
    unpublish: mutations.claim(`unpublish${type}`),
    delete: mutations.claim(`delete${type}`),
    revert: mutations.claim(`revert${type}`),
    trashed: queries.claim(`trashed${pluralOf(type)}`),
    restore: mutations.claim(`restore${type}`),
    emptyTrash: mutations.claim(`empty${pluralOf(type)}Trash`),
    bulkCreate: mutations.claim(`bulkCreate${pluralOf(type)}`),
    bulkUpdate: mutations.claim(`bulkUpdate${pluralOf(type)}`),
    bulkDelete: mutations.claim(`bulkDelete${pluralOf(type)}`),
    bulkCreateItem: types.claim(`${type}BulkCreateItem`),
    bulkUpdateItem: types.claim(`${type}BulkUpdateItem`),
    bulkPayload: types.claim(`${type}BulkPayload`),
  };
}

/**
 * Names the entry type's own fields take, reserved before custom fields so a custom field called
 * `uuid`, `or` or `eq` becomes `uuidField`, `orField`, `eqField`: the `where` input and the relation
 * filter use the same field names as the type, next to these.
 */
export const SYSTEM_FIELD_NAMES = [
  'id',
  'uuid',
  'locale',
  'state',
  'publishedAt',
  'createdAt',
  'updatedAt',
  'publishedVersionNumber',
  'isDraftDirty',
  'searchScore',
  'resolvedLocale',
  'requestedLocale',
  'versions',
  'and',
  'or',
  'eq',
  'not',
  'in',
  'notIn',
  'null',
  'notNull',
  'lt',
  'lte',
  'gt',
  'gte',
  'like',
  'between',
  'notBetween',
];

export function fieldRegistry(): NameRegistry {
  return new NameRegistry(SYSTEM_FIELD_NAMES);
}

/** Field name of a custom field: camelCase, `Field` suffix on a clash. */
export function claimFieldName(registry: NameRegistry, fieldName: string): string {
  return registry.claim(camelCase(fieldName) || 'field', 'Field');
}

/** Enum value names for a list of stored strings, in order; duplicates after casing take a counter. */
export function enumValueNames(values: readonly string[]): Array<{ name: string; value: string }> {
  const registry = new NameRegistry(['true', 'false', 'null']);
  const seen = new Set<string>();
  const out: Array<{ name: string; value: string }> = [];
  for (const value of values) {
    if (seen.has(value)) continue;
    seen.add(value);
    out.push({ name: registry.claim(enumValueName(value), '', '_'), value });
  }
  return out;
}
