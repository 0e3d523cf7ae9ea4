import type { CollectionSchema, FieldDef } from '../collections/model.ts';
import { ErrorBag, validationFailed } from '../errors.ts';
import { LIMITS, isCoreColumn, isOperator, type Target, type WhereNode } from './ast.ts';
import { coreTarget, describeTarget, fieldTarget, operandKind, operatorsForTarget } from './kinds.ts';
import { ValueError, parseOperand } from './values.ts';
import { visibleField } from '../collections/visibility.ts';

/** Loads the collection a relation field points at (by internal id), or null. */
export type CollectionLoader = (collectionId: number) => Promise<CollectionSchema | null>;

type RawObject = Record<string, unknown>;

const isObject = (v: unknown): v is RawObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The keys that open a group of alternatives / of conjuncts; a field of that name cannot be filtered. */
const GROUP_KEYS = new Set(['or', 'and']);

/** The items of an `or`/`and` list: an array, or the index-keyed object qs makes of long or sparse lists. */
function groupList(v: unknown): unknown[] | null {
  if (Array.isArray(v)) return v;
  if (isObject(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => /^\d+$/.test(k))) {
    return Object.keys(v)
      .sort((a, b) => Number(a) - Number(b))
      .map((k) => v[k]);
  }
  return null;
}

class WhereParser {
  readonly errors = new ErrorBag();
  private conditions = 0;
  private tooMany = false;

  constructor(private readonly loadCollection: CollectionLoader) {}

  /** Parses one object of `field → operators` plus `or`/`and` groups into an AND node. */
  async group(raw: RawObject, collection: CollectionSchema, prefix: string, depth: number, nested: boolean): Promise<WhereNode> {
    const items: WhereNode[] = [];
    for (const key of Object.keys(raw)) {
      const value = raw[key];
      const path = `${prefix}.${key}`;
      if (GROUP_KEYS.has(key)) {
        const node = await this.groups(key as 'or' | 'and', value, collection, path, depth, nested);
        if (node) items.push(node);
        continue;
      }
      if (isCoreColumn(key)) {
        items.push(...this.operators(coreTarget(key), value, path));
        continue;
      }
      // Hidden and password fields are unknown here, with the very message of a missing field: a
      // filter on them would reveal their values one guess (or one `like` character) at a time.
      const field = visibleField(collection, key);
      if (!field) {
        this.errors.add(path, `The field '${key}' does not exist in this collection.`);
        continue;
      }
      const target = fieldTarget(field);
      if (!target) {
        this.errors.add(path, `The field '${key}' cannot be filtered.`);
        continue;
      }
      if (field.type === 'relation' && isObject(value) && Object.keys(value).some((k) => !isOperator(k))) {
        const node = await this.related(field, target, value, path, depth, nested);
        items.push(...node);
        continue;
      }
      items.push(...this.operators(target, value, path));
    }
    return items.length === 1 ? items[0] : { kind: 'and', items };
  }

  private async groups(kind: 'or' | 'and', value: unknown, collection: CollectionSchema, path: string, depth: number, nested: boolean): Promise<WhereNode | null> {
    const list = groupList(value);
    if (!list || list.some((g) => !isObject(g))) {
      this.errors.add(path, `'${kind}' must be a list of groups, e.g. where[${kind}][0][field][eq]=value.`);
      return null;
    }
    if (depth + 1 > LIMITS.maxDepth) {
      this.errors.add(path, `Filters may nest at most ${LIMITS.maxDepth} levels deep.`);
      return null;
    }
    // An empty list (possible from GraphQL) adds no condition rather than matching nothing.
    if (list.length === 0) return null;
    const items: WhereNode[] = [];
    for (let i = 0; i < list.length; i++) items.push(await this.group(list[i] as RawObject, collection, `${path}.${i}`, depth + 1, nested));
    return { kind, items };
  }

  /** `where[author][name][like]=ann`: operator keys filter the reference itself, other keys the target entry. */
  private async related(field: FieldDef, target: Target, value: RawObject, path: string, depth: number, nested: boolean): Promise<WhereNode[]> {
    const own: RawObject = Object.create(null) as RawObject;
    const inner: RawObject = Object.create(null) as RawObject;
    for (const k of Object.keys(value)) (isOperator(k) ? own : inner)[k] = value[k];
    const out: WhereNode[] = Object.keys(own).length ? this.operators(target, own, path) : [];
    if (nested) {
      this.errors.add(path, 'Filters reach related entries one level deep only.');
      return out;
    }
    if (depth + 1 > LIMITS.maxDepth) {
      this.errors.add(path, `Filters may nest at most ${LIMITS.maxDepth} levels deep.`);
      return out;
    }
    const targetId = field.options.relation?.collection;
    const targetCollection = typeof targetId === 'number' ? await this.loadCollection(targetId) : null;
    if (!targetCollection) {
      this.errors.add(path, `The related collection of '${field.name}' cannot be filtered.`);
      return out;
    }
    const filter = await this.group(inner, targetCollection, path, depth + 1, true);
    out.push({ kind: 'related', key: path, field, target: targetCollection, filter });
    return out;
  }

  /** The operators of one field: `v` (eq), `[a,b]` (in) or `{ op: operand, ... }` ANDed. */
  private operators(target: Target, value: unknown, path: string): WhereNode[] {
    const entries: Array<[string, unknown, string]> = isObject(value)
      ? Object.keys(value).map((op) => [op, value[op], `${path}.${op}`])
      : [[Array.isArray(value) ? 'in' : 'eq', value, path]];
    if (entries.length === 0) this.errors.add(path, 'The filter needs an operator and a value.');
    const out: WhereNode[] = [];
    for (const [opKey, operand, key] of entries) {
      if (!isOperator(opKey)) {
        this.errors.add(key, `Unknown operator '${opKey}'.`);
        continue;
      }
      if (!operatorsForTarget(target).includes(opKey)) {
        this.errors.add(key, `The operator '${opKey}' cannot be used on ${describeTarget(target)}.`);
        continue;
      }
      if (++this.conditions > LIMITS.maxConditions) {
        if (!this.tooMany) this.errors.add('where', `A filter may hold at most ${LIMITS.maxConditions} conditions.`);
        this.tooMany = true;
        continue;
      }
      try {
        const { op, values } = parseOperand(operandKind(target, opKey), opKey, operand);
        out.push({ kind: 'cond', key, target, op, values });
      } catch (err) {
        if (!(err instanceof ValueError)) throw err;
        this.errors.add(key, err.message);
      }
    }
    return out;
  }
}

/**
 * Normalises and validates a raw `where` object (qs output, or the GraphQL input converted to the
 * same shape) into an AST. Throws a 422 listing every problem under keys like `where.views.gt`.
 */
export async function parseWhere(raw: unknown, collection: CollectionSchema, loadCollection: CollectionLoader): Promise<WhereNode | null> {
  if (raw === undefined || raw === null || raw === '') return null;
  if (!isObject(raw)) throw validationFailed({ where: ['The filter must be given as where[field][operator]=value.'] });
  if (Object.keys(raw).length === 0) return null;
  const parser = new WhereParser(loadCollection);
  const node = await parser.group(raw, collection, 'where', 0, false);
  if (Object.keys(parser.errors.errors).length) throw validationFailed(parser.errors.errors);
  return node;
}
