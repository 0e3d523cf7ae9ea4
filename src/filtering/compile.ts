import { Prisma, type Tx } from '../db/client.ts';
import type { Condition, DateValue, FilterValue, ReferenceValue, RelatedCondition, Target, WhereNode } from './ast.ts';
import { publishedReadCondition, textLiteral } from '../collections/field-indexes.ts';
import {
  allOf,
  anyOf,
  compareDates,
  compareOrdered,
  compareValue,
  timestampPrimitives,
  isNegative,
  likePattern,
  negate,
  type Operand,
} from './operators.ts';

type Sql = Prisma.Sql;
const { sql, raw, join } = Prisma;

export interface CompileEnv {
  db: Tx;
  projectId: number;
  column: 'data' | 'published_data';
  /** SQL alias of the entries row being filtered. */
  alias: string;
  /**
   * How a nested filter on a single relation is joined (compileRelated): `semi` for reads that
   * order and limit, `array` for a COUNT. Defaults to `semi`.
   */
  related?: 'semi' | 'array';
  /**
   * Resolved reference values, shared between the compiles of one filter so compiling it twice
   * (a page and its COUNT) looks each up once.
   */
  references?: Map<Condition, Promise<string[]>>;
  /**
   * Runs a nested relation filter's target lookup (`SELECT uuid::text AS uuid ...`) before the read,
   * so the read names its targets (compileRelated). Only for a read compiled per request: a filter
   * kept and evaluated later (live subscriptions) would hold a stale list. The lookup's text holds
   * no request value (only its parameters do), so the caller may prepare it (TargetLookup).
   */
  resolveTargets?: TargetLookup;
  /**
   * Field names as SQL literals instead of parameters: set for a nested filter's targets, whose
   * lookup may run prepared with a generic plan, which matches a field's expression index only when
   * the name is in the text.
   */
  namesInText?: boolean;
  /** Target lookups already made, shared like `references` (a page and its COUNT look up once). */
  targets?: Map<RelatedCondition, Promise<Array<{ uuid: string }>>>;
}

/**
 * Runs a target lookup and returns its rows. `statement`'s text carries the target collection and
 * the nested filter's field names as literals and every value as a parameter: one text per filter
 * shape, so it can be prepared once per connection (targetLookup in src/entries/reads/read-rows.ts).
 */
export type TargetLookup = (statement: Sql) => Promise<Array<{ uuid: string }>>;

/**
 * Most targets a nested filter inlines (compileRelated); past it the read joins the lookup instead.
 * A bound on the parameter's size and on the planner's per-element estimate, far above a page's needs.
 */
export const MAX_INLINED_TARGETS = 1000;

/** Alias of the related entries in a nested relation filter (one level deep, so one alias suffices). */
const RELATED_ALIAS = 'filter_rel';

const ALIAS_RE = /^[a-z_][a-z0-9_]{0,62}$/;

export function columnRef(env: CompileEnv, column: string): Sql {
  if (!ALIAS_RE.test(env.alias)) throw new Error(`invalid SQL alias ${env.alias}`);
  return raw(`"${env.alias}"."${column}"`);
}

export async function compileNode(node: WhereNode, env: CompileEnv): Promise<Sql> {
  switch (node.kind) {
    case 'and':
      return allOf(await Promise.all(node.items.map((n) => compileNode(n, env))));
    case 'or':
      return anyOf(await Promise.all(node.items.map((n) => compileNode(n, env))));
    case 'related':
      return compileRelated(node, env);
    case 'cond':
      return node.target.kind === 'core' ? compileCore(node, env) : compileField(node, env);
  }
}

function signed(op: Condition['op'], positive: Sql): Sql {
  return isNegative(op) ? negate(positive) : positive;
}

/**
 * A core column as the API renders it, for `like`: ids in decimal, UUIDs in lowercase hex with
 * hyphens, `state` by name, timestamps as `toISOString()` writes them (UTC, milliseconds, `Z`:
 * `2026-11-21T09:05:03.120Z`; the columns hold milliseconds, so nothing is rounded). The other
 * operators keep comparing the typed column, so their indexes (primary key, unique UUID, list
 * indexes) still serve them; a `like` on a core column reads the collection's rows and tests each.
 */
function coreText(x: Sql, column: Extract<Target, { kind: 'core' }>): Sql {
  switch (column.valueKind) {
    case 'instant':
      return sql`to_char(${x} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    case 'text':
      return x;
    default:
      return sql`${x}::text`;
  }
}

function compileCore(c: Condition, env: CompileEnv): Sql {
  if (c.target.kind !== 'core') throw new Error('not a core condition');
  // Published reads show (and so filter by) the published version's time (src/entries/reads/serialize.ts).
  const column = c.target.column === 'updated_at' && env.column === 'published_data' ? 'published_updated_at' : c.target.column;
  const x = columnRef(env, column);
  if (c.op === 'null') return sql`${x} IS NULL`;
  if (c.op === 'not_null') return sql`${x} IS NOT NULL`;
  if (c.op === 'like') return sql`${coreText(x, c.target)} ILIKE ${likePattern(c.values[0] as string)}`;
  switch (c.target.valueKind) {
    case 'number': {
      // Integer literals stay integers so the primary key index applies.
      const vals = (c.values as string[]).map((v) => (/^-?\d{1,9}$/.test(v) ? sql`${Number(v)}::int` : sql`${v}::numeric`));
      return signed(c.op, compareOrdered(x, c.op, vals));
    }
    case 'uuid':
      return signed(c.op, compareOrdered(x, c.op, (c.values as string[]).map((v) => sql`${v}::uuid`)));
    case 'state':
      return signed(c.op, compareOrdered(sql`${x}::text`, c.op, (c.values as string[]).map((v) => sql`${v}`)));
    case 'instant':
      return signed(c.op, compareDates(timestampPrimitives, x, x, c.op, c.values as DateValue[]));
    default:
      return signed(c.op, compareOrdered(x, c.op, (c.values as string[]).map((v) => sql`${v}`)));
  }
}

/** Containment of `{ name: value }` (or `{ name: [value] }` for arrays): the form the GIN index serves. */
function contains(env: CompileEnv, name: string, jsonValue: string, asArray: boolean): Sql {
  const doc = `{${JSON.stringify(name)}:${asArray ? `[${jsonValue}]` : jsonValue}}`;
  return sql`${columnRef(env, env.column)} @> ${doc}::jsonb`;
}

async function compileField(c: Condition, env: CompileEnv): Promise<Sql> {
  if (c.target.kind !== 'field') throw new Error('not a field condition');
  const { field, valueKind: kind, repeatable, multiple } = c.target;
  const col = columnRef(env, env.column);
  const key = env.namesInText ? raw(`${textLiteral(field.name)}::text`) : sql`${field.name}::text`;
  const json = sql`(${col} -> ${key})`;
  const text = sql`(${col} ->> ${key})`;
  // No value: key missing, JSON null, or an empty list.
  const isEmpty = sql`COALESCE(${json} IN ('null'::jsonb, '[]'::jsonb), TRUE)`;
  if (c.op === 'null') return isEmpty;
  if (c.op === 'not_null') return negate(isEmpty);

  const arrayShaped = repeatable || multiple;
  const eqLike = c.op === 'eq' || c.op === 'not' || c.op === 'in' || c.op === 'not_in';
  if (kind === 'reference') {
    let resolving = env.references?.get(c);
    if (!resolving) {
      resolving = resolveReferences(env, c, c.values as ReferenceValue[]);
      env.references?.set(c, resolving);
    }
    const uuids = await resolving;
    return signed(c.op, anyOf(uuids.map((u) => contains(env, field.name, JSON.stringify(u), multiple))));
  }
  if (eqLike && (kind === 'text' || kind === 'tags' || kind === 'number' || kind === 'boolean' || kind === 'day')) {
    const literal = (v: FilterValue): string => (kind === 'number' || kind === 'boolean' ? (v as string) : JSON.stringify(kind === 'day' ? (v as { day: string }).day : v));
    return signed(c.op, anyOf(c.values.map((v) => contains(env, field.name, literal(v), arrayShaped))));
  }

  if (!arrayShaped) return signed(c.op, compareValue(kind, { json, text }, c.op, c.values));
  // Any element matches. A scalar left over from before the field became repeatable counts as one element.
  const el: Operand = { json: sql`filter_el.v`, text: sql`(filter_el.v #>> '{}')` };
  const elements = sql`CASE WHEN jsonb_typeof(${json}) = 'array' THEN ${json} WHEN jsonb_typeof(${json}) <> 'null' THEN jsonb_build_array(${json}) END`;
  return signed(c.op, sql`EXISTS (SELECT 1 FROM jsonb_array_elements(${elements}) AS filter_el(v) WHERE ${compareValue(kind, el, c.op, c.values)})`);
}

/** UUIDs of the referenced entries/assets; numeric ids are looked up in the project (unknown ids drop out). */
async function resolveReferences(env: CompileEnv, c: Condition, values: ReferenceValue[]): Promise<string[]> {
  const uuids = values.flatMap((v) => ('uuid' in v ? [v.uuid] : []));
  const ids = values.flatMap((v) => ('id' in v ? [v.id] : []));
  if (ids.length === 0 || c.target.kind !== 'field') return uuids;
  const field = c.target.field;
  let rows: Array<{ uuid: string }>;
  if (field.type === 'media') {
    rows = await env.db.$queryRaw<Array<{ uuid: string }>>(
      sql`SELECT uuid::text AS uuid FROM assets WHERE project_id = ${env.projectId} AND id IN (${join(ids)}) AND deleted_at IS NULL`,
    );
  } else {
    const target = field.options.relation?.collection;
    const scope = typeof target === 'number' ? sql` AND collection_id = ${target}` : sql``;
    rows = await env.db.$queryRaw<Array<{ uuid: string }>>(
      sql`SELECT uuid::text AS uuid FROM entries WHERE project_id = ${env.projectId} AND id IN (${join(ids)}) AND deleted_at IS NULL${scope}`,
    );
  }
  return [...uuids, ...rows.map((r) => r.uuid)];
}

/**
 * `where[author][name][like]=ann`: the outer row's relation UUID must be among the matching related
 * entries, in the same state column as the outer read, so published reads match published values of
 * the targets. The targets' filter is answered from their `_p_`/`_d_` field indexes (the scope below
 * is their partial predicate), the outer side from the relation field's UUID btree
 * (src/collections/field-indexes.ts).
 *
 * With `env.resolveTargets` (a list read) the targets are looked up first and the read names them
 * (`= ANY ($n::text[])`, up to MAX_INLINED_TARGETS): the planner then sees how many there are and
 * estimates the match from the relation index's statistics. Joined instead, the lookup's side is
 * estimated at a row or two after a nested `like`, so a broad filter (111 of 200 authors, 3,900 of
 * 10,000 posts) was planned as a nested loop over every match and a sort (~15 ms) where walking the
 * id order stops after 64 rows (~1 ms), while a join planned for many walked the whole primary key
 * for a selective one. One more round trip, a small one, for a plan that fits either case.
 *
 * Otherwise (a filter evaluated later, or too many targets) the lookup is joined: as a semi-join
 * (`IN (SELECT uuid ...)`) for reads that order and limit, and with `env.related = 'array'` (a
 * COUNT) as `= ANY (ARRAY(SELECT uuid ...))`: one bitmap scan of the relation's btree for all of
 * them, each heap page visited once, where the semi-join probes the index once per target and
 * revisits pages (at 10,000 posts: 1,153 against 5,789 buffers). Not for a page: the array is planned
 * as 10 elements whatever it holds, so under ORDER BY ... LIMIT a selective nested filter walked the
 * whole primary key. Multiple relations (arrays, no btree) test each element against the targets.
 */
async function compileRelated(node: RelatedCondition, env: CompileEnv): Promise<Sql> {
  const inner = await compileNode(node.filter, { ...env, alias: RELATED_ALIAS, namesInText: true });
  const r = raw(RELATED_ALIAS);
  const scope = allOf([
    sql`${r}.project_id = ${env.projectId}`,
    // In the text, as the targets' partial indexes name it: a generic plan can only use them so.
    raw(`${RELATED_ALIAS}.collection_id = ${Number(node.target.id)}`),
    sql`${r}.deleted_at IS NULL`,
    // Published reads see only published targets, with the list's own test (which the targets'
    // `_p_` indexes are partial on, so a nested `like` can use the target field's trigram index).
    ...(env.column === 'published_data' ? [publishedReadCondition(RELATED_ALIAS)] : []),
    inner,
  ]);
  const name = node.field.name;
  const col = columnRef(env, env.column);
  const single = node.field.options.relation?.type !== 2;
  const related = sql`SELECT ${r}.uuid::text AS uuid FROM entries ${r} WHERE ${scope}`;
  const found = env.resolveTargets ? await lookUpTargets(env, node, env.resolveTargets, related) : null;
  if (found && found.length <= MAX_INLINED_TARGETS) {
    const targets = found.map((t) => t.uuid);
    if (single) return sql`(${col} ->> ${name}::text) = ANY (${targets}::text[])`;
    return sql`EXISTS (SELECT 1 FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(${col} -> ${name}::text) = 'array' THEN ${col} -> ${name}::text END) AS filter_ref(v) WHERE filter_ref.v = ANY (${targets}::text[]))`;
  }
  if (single) {
    return env.related === 'array' ? sql`(${col} ->> ${name}::text) = ANY (ARRAY(${related}))` : sql`(${col} ->> ${name}::text) IN (${related})`;
  }
  return sql`EXISTS (SELECT 1 FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(${col} -> ${name}::text) = 'array' THEN ${col} -> ${name}::text END) AS filter_ref(v) WHERE filter_ref.v IN (${related}))`;
}

function lookUpTargets(env: CompileEnv, node: RelatedCondition, resolve: NonNullable<CompileEnv['resolveTargets']>, related: Sql): Promise<Array<{ uuid: string }>> {
  let found = env.targets?.get(node);
  if (!found) {
    found = resolve(sql`${related} LIMIT ${raw(String(MAX_INLINED_TARGETS + 1))}`);
    env.targets?.set(node, found);
  }
  return found;
}
