import type { Prisma, Tx } from '../db/client.ts';
import { buildCollectionSchema, type CollectionSchema } from '../collections/model.ts';
import { compileNode, type CompileEnv, type TargetLookup } from './compile.ts';
import { parseWhere, type CollectionLoader } from './parse.ts';
import type { WhereNode } from './ast.ts';

export type { WhereNode } from './ast.ts';
export type { TargetLookup } from './compile.ts';
export { LIMITS as WHERE_LIMITS } from './ast.ts';

export interface WhereOptions {
  db: Tx;
  projectId: number;
  collection: CollectionSchema;
  /** Which JSONB column holds field values: the working draft or the published copy. */
  column: 'data' | 'published_data';
  /** SQL alias of the entries table in the surrounding query. */
  alias: string;
  /**
   * How relation targets' schemas are found; defaults to one query per target. Reads pass their
   * request's cached loader, so a nested filter costs no round trip for the target's fields.
   */
  loadCollection?: CollectionLoader;
  /**
   * Runs a nested relation filter's target lookup before the read, which then names the targets
   * (src/filtering/compile.ts, compileRelated). Only for a filter compiled for one read.
   */
  resolveTargets?: TargetLookup;
}

/** Loads relation targets of the same project, once per compile. */
function collectionLoader(db: Tx, projectId: number): CollectionLoader {
  const cache = new Map<number, Promise<CollectionSchema | null>>();
  return (id) => {
    let hit = cache.get(id);
    if (!hit) {
      hit = db.collection
        .findFirst({ where: { id, projectId }, include: { fields: { where: { deletedAt: null } } } })
        .then((c) => (c ? buildCollectionSchema(c, c.fields) : null));
      cache.set(id, hit);
    }
    return hit;
  };
}

/**
 * Compiles a `where` filter (the qs-parsed object of `where[...]` or the GraphQL input, normalised to
 * the same shape) into a SQL condition over `alias`. Field names map to known fields only; every value
 * is a bound parameter. Throws a 422 AppError naming the offending key. Returns null for no filter.
 * The semantics of every operator per field type are documented in docs/filtering.md.
 */
export async function compileWhere(where: unknown, opts: WhereOptions): Promise<Prisma.Sql | null> {
  const ast = await parseWhere(where, opts.collection, opts.loadCollection ?? collectionLoader(opts.db, opts.projectId));
  if (!ast) return null;
  return compileNode(ast, { db: opts.db, projectId: opts.projectId, column: opts.column, alias: opts.alias });
}

/** A filter compiled for a read of rows (`rows`: ordered, limited) and for the COUNT of its matches. */
export interface CompiledWhere {
  rows: Prisma.Sql;
  /** The same matches, joined for counting (see compileRelated); the same object as `rows` when no form differs. */
  count: Prisma.Sql;
  /**
   * How many conditions the filter ANDs at its top level (1 for a single condition or an `or`). A
   * COUNT of one condition may be answered from its index alone; of several, every match is read.
   */
  conjuncts: number;
}

/**
 * compileWhere for a paginated read: the same filter in the form each statement plans best. Only a
 * nested filter on a single relation differs; references and nested targets are looked up once for both.
 */
export async function compileWhereWithCount(where: unknown, opts: WhereOptions): Promise<CompiledWhere | null> {
  const ast = await parseWhere(where, opts.collection, opts.loadCollection ?? collectionLoader(opts.db, opts.projectId));
  if (!ast) return null;
  const env: CompileEnv = {
    db: opts.db,
    projectId: opts.projectId,
    column: opts.column,
    alias: opts.alias,
    references: new Map(),
    resolveTargets: opts.resolveTargets,
    targets: new Map(),
  };
  const rows = await compileNode(ast, env);
  const conjuncts = ast.kind === 'and' ? ast.items.length : 1;
  if (!hasSingleRelated(ast)) return { rows, count: rows, conjuncts };
  return { rows, count: await compileNode(ast, { ...env, related: 'array' }), conjuncts };
}

function hasSingleRelated(node: WhereNode): boolean {
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.items.some(hasSingleRelated);
    case 'related':
      return node.field.options.relation?.type !== 2 || hasSingleRelated(node.filter);
    case 'cond':
      return false;
  }
}
