import type { CollectionSchema, FieldDef } from '../../collections/model.ts';
import { isVisibleField } from '../../collections/visibility.ts';
import { coreTarget, fieldTarget, operatorsForTarget } from '../../filtering/kinds.ts';
import type { CoreColumn, Target, ValueKind } from '../../filtering/ast.ts';
import { arrayOf, entryListSchema, entrySchema, ref, type JsonSchema } from './components.ts';

/**
 * The per-project part of `/api/openapi.json` (asked for with a project's headers): each collection
 * gets its own paths (`/api/posts`, `/api/posts/{uuid}`) whose bodies carry typed `fields` and whose
 * list takes a typed `where`, built from the same field definitions the content operations validate
 * against. Generic `/api/{collection}` paths stay for clients that do not know the model.
 */

type Doc = { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, JsonSchema> }; tags?: Array<{ name: string }> };

const pascal = (slug: string): string =>
  slug
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('') || 'Collection';

const withNull = (s: JsonSchema): JsonSchema => ({ anyOf: [s, { type: 'null' }] });

function dateSchema(f: FieldDef): JsonSchema {
  const one: JsonSchema = f.options.includeTime ? { type: 'string', format: 'date-time' } : { type: 'string', format: 'date' };
  if (f.options.mode !== 'range') return one;
  return { type: 'object', properties: { start: withNull(one), end: withNull(one) } };
}

/** The value REST answers for a field (relations nested one level as entries, media as assets). */
function outputValue(f: FieldDef): JsonSchema {
  const o = f.options;
  const list = (s: JsonSchema) => (o.repeatable ? arrayOf(s) : s);
  switch (f.type) {
    case 'number':
      return list({ type: 'number' });
    case 'boolean':
      return { type: 'boolean' };
    case 'enumeration': {
      const one: JsonSchema = { type: 'string', enum: o.enumeration?.list ?? [] };
      return o.multiple ? arrayOf(one) : one;
    }
    case 'date':
      return list(dateSchema(f));
    case 'json':
      return {};
    case 'media':
      return o.media?.type === 2 ? arrayOf(ref('Asset')) : ref('Asset');
    case 'relation':
      return o.relation?.type === 2 ? arrayOf(ref('Entry')) : ref('Entry');
    case 'group': {
      const one = objectOf(f.children, outputValue, isVisibleField);
      return o.repeatable ? arrayOf(one) : one;
    }
    default:
      return list({ type: 'string' });
  }
}

/** The value a write takes: references by UUID (or numeric id for media), passwords in clear. */
function inputValue(f: FieldDef): JsonSchema {
  const o = f.options;
  const reference: JsonSchema = { anyOf: [{ type: 'string' }, { type: 'integer' }] };
  switch (f.type) {
    case 'media':
      return o.media?.type === 2 ? arrayOf(reference) : reference;
    case 'relation':
      return o.relation?.type === 2 ? arrayOf({ type: 'string', format: 'uuid' }) : { type: 'string', format: 'uuid' };
    case 'group': {
      const one = objectOf(f.children, inputValue, () => true);
      return o.repeatable ? arrayOf(one) : one;
    }
    default:
      return outputValue(f);
  }
}

function objectOf(fields: FieldDef[], value: (f: FieldDef) => JsonSchema, include: (f: FieldDef) => boolean): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const f of fields) {
    if (!include(f)) continue;
    const v = value(f);
    properties[f.name] = { ...withNull(v), ...(f.description || f.label ? { description: f.description || f.label } : {}) };
  }
  return { type: 'object', properties, additionalProperties: false };
}

const OPERAND: Record<ValueKind, JsonSchema> = {
  text: { type: 'string' },
  number: { type: 'number' },
  boolean: { type: 'boolean' },
  day: { type: 'string', format: 'date' },
  instant: { type: 'string', format: 'date-time' },
  day_range: { type: 'string', format: 'date' },
  instant_range: { type: 'string', format: 'date-time' },
  tags: { type: 'string' },
  json: {},
  reference: { type: 'string' },
  uuid: { type: 'string', format: 'uuid' },
  state: { type: 'string', enum: ['draft', 'published'] },
};

/** `where[field][op]=value`: the operators src/filtering accepts for the target, with typed operands. */
function conditionSchema(t: Target): JsonSchema {
  const value = OPERAND[t.valueKind];
  const properties: Record<string, JsonSchema> = {};
  for (const op of operatorsForTarget(t)) {
    if (op === 'in' || op === 'not_in') properties[op] = arrayOf(value);
    else if (op === 'between' || op === 'not_between') properties[op] = { ...arrayOf(value), minItems: 2, maxItems: 2 };
    else if (op === 'null' || op === 'not_null') properties[op] = { type: 'boolean' };
    else if (op === 'like') properties[op] = { type: 'string' };
    else properties[op] = value;
  }
  return { type: 'object', properties, additionalProperties: false };
}

const CORE_COLUMNS: CoreColumn[] = ['id', 'uuid', 'locale', 'state', 'created_at', 'updated_at', 'published_at'];

function whereSchema(c: CollectionSchema, self: string): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const column of CORE_COLUMNS) properties[column] = conditionSchema(coreTarget(column));
  for (const f of c.fields) {
    const t = isVisibleField(f) ? fieldTarget(f) : null;
    if (t) properties[f.name] = conditionSchema(t);
  }
  properties.or = { ...arrayOf(ref(self)), description: 'Any of these condition sets.' };
  properties.and = { ...arrayOf(ref(self)), description: 'All of these condition sets.' };
  return { type: 'object', description: `Conditions on "${c.name}" entries (where[field][operator]=value).`, properties, additionalProperties: false };
}

const errorRefs = (codes: string[]) => Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/responses/Error${code}` }]));
const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
const uuidParam = { name: 'uuid', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
const query = (name: string, schema: JsonSchema, description: string) => ({ name, in: 'query', required: false, description, schema });
const readParams = [
  query('state', { type: 'string', enum: ['published', 'draft'] }, 'published (default): the live snapshot; draft: the working draft'),
  query('locale', { type: 'string' }, 'Only entries of this locale'),
  query('timestamps', { type: 'string' }, 'Present: add created_at and updated_at'),
  query('exclude', { type: 'string' }, 'Comma-separated field names left out of fields'),
];

/** Removes the operations tagged `tag` (and a path left with none), with the tag itself. */
function dropTagged(doc: Doc, tag: string): void {
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if ((op as { tags?: string[] }).tags?.includes(tag)) delete ops[method];
    }
    if (Object.keys(ops).length === 0) delete doc.paths[path];
  }
  if (doc.tags) doc.tags = doc.tags.filter((t) => t.name !== tag);
}

/**
 * Adds the project's collections to a copy of the generic document. `releases: false` (a token
 * limited to collections, src/releases/operations/access.ts) leaves the release routes out, as the
 * token's typed GraphQL schema leaves the release operations out.
 */
export function projectOpenApi(base: Doc, collections: CollectionSchema[], projectName: string, opts: { releases: boolean } = { releases: true }): Doc {
  const doc: Doc = structuredClone(base);
  if (!opts.releases) dropTagged(doc, 'releases');
  const schemas = doc.components.schemas;
  const claim = (name: string) => {
    let out = name;
    for (let n = 2; schemas[out]; n++) out = `${name}${n}`;
    return out;
  };
  for (const c of collections) {
    const listPath = `/api/${c.slug}`;
    const onePath = `/api/${c.slug}/{uuid}`;
    // A slug that names a fixed route (`files`, `collections`…) keeps the generic description.
    if (doc.paths[listPath] || doc.paths[onePath]) continue;
    const base = pascal(c.slug);
    const names = { fields: claim(`${base}Fields`), entry: '', write: '', where: '' };
    schemas[names.fields] = objectOf(c.fields, outputValue, isVisibleField);
    names.entry = claim(`${base}Entry`);
    schemas[names.entry] = { ...entrySchema(ref(names.fields)), description: `An entry of "${c.name}".` };
    names.write = claim(`${base}Write`);
    schemas[names.write] = objectOf(c.fields, inputValue, () => true);
    names.where = claim(`${base}Where`);
    schemas[names.where] = whereSchema(c, names.where);

    const tags = [`collection: ${c.slug}`];
    const writeBody = (description: string) => ({
      required: true,
      description,
      content: json({ type: 'object', required: ['data'], properties: { data: ref(names.write), locale: { type: 'string' }, state: { type: 'string', enum: ['draft', 'published'] } } }),
    });
    const entryAnswer = (status: string) => ({ [status]: { description: `The "${c.name}" entry.`, content: json(ref(names.entry)) } });
    doc.paths[listPath] = {
      get: {
        operationId: `list${base}`,
        summary: `List "${c.name}" entries`,
        tags,
        'x-ability': 'read',
        parameters: [
          ...readParams,
          { name: 'where', in: 'query', required: false, style: 'deepObject', explode: true, schema: ref(names.where), description: 'Typed conditions: where[field][operator]=value' },
          query('sort', { type: 'string' }, 'field:asc,other:desc'),
          query('search', { type: 'string', maxLength: 500 }, 'Full-text search over the text-like fields: words, "a phrase", -excluded, prefix*, or; ranked by relevance (meta.score on each entry) unless sort is given'),
          query('paginate', { type: 'integer', minimum: 1, maximum: 100 }, 'Page size: answers a paginator'),
          query('page', { type: 'integer', minimum: 1 }, 'Page number'),
          query('limit', { type: 'integer', minimum: 1 }, 'At most this many entries (array answer)'),
          query('offset', { type: 'integer', minimum: 0 }, 'Skip this many entries'),
          query('count', { type: 'string' }, 'Present: answer { count }'),
          query('first', { type: 'string' }, 'Present: answer the first entry'),
        ],
        responses: { '200': { description: `"${c.name}" entries.`, content: json(entryListSchema(ref(names.entry))) }, ...errorRefs(['400', '401', '403', '404', '422', '429']) },
      },
      post: {
        operationId: `create${base}`,
        summary: `Create a "${c.name}" entry`,
        tags,
        'x-ability': 'create',
        requestBody: writeBody('state=published publishes on create.'),
        responses: { ...entryAnswer('201'), ...errorRefs(['400', '401', '403', '404', '422', '429']) },
      },
    };
    doc.paths[onePath] = {
      get: {
        operationId: `get${base}`,
        summary: `Get a "${c.name}" entry`,
        tags,
        'x-ability': 'read',
        parameters: [uuidParam, ...readParams, query('translation_locale', { type: 'string' }, 'The linked translation in this locale')],
        responses: { ...entryAnswer('200'), ...errorRefs(['400', '401', '403', '404', '429']) },
      },
      put: {
        operationId: `replace${base}`,
        summary: `Replace every field of a "${c.name}" entry`,
        tags,
        'x-ability': 'update',
        parameters: [uuidParam],
        requestBody: writeBody('Fields not sent are cleared.'),
        responses: { ...entryAnswer('200'), ...errorRefs(['400', '401', '403', '404', '422', '429']) },
      },
      patch: {
        operationId: `update${base}`,
        summary: `Update the fields sent of a "${c.name}" entry`,
        tags,
        'x-ability': 'update',
        parameters: [uuidParam],
        requestBody: writeBody('Only the fields sent change.'),
        responses: { ...entryAnswer('200'), ...errorRefs(['400', '401', '403', '404', '422', '429']) },
      },
      delete: {
        operationId: `delete${base}`,
        summary: `Delete a "${c.name}" entry (to the trash; ?force=1 for good)`,
        tags,
        'x-ability': 'delete',
        parameters: [uuidParam, query('force', { type: 'string' }, 'Present: delete for good')],
        responses: { '200': { description: 'Deleted.', content: json(ref('EntryDeleted')) }, ...errorRefs(['400', '401', '403', '404', '429']) },
      },
    };
    (doc as { tags?: Array<{ name: string; description?: string }> }).tags?.push({ name: tags[0], description: `Typed operations on "${c.name}" of ${projectName}.` });
  }
  return doc;
}
