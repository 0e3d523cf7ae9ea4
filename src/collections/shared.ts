import { z } from 'zod';
import type { Collection, Field } from '../db/generated/prisma/client.ts';
import { Prisma, markJoinedTransaction, type PrismaClient, type Tx } from '../db/client.ts';
import type { Ctx } from '../context.ts';
import { ErrorBag, notFound, validationFailed } from '../errors.ts';
import { bumpSchemaRevision } from './schema-revision.ts';
import { SchemaEffects, applyAfterCommit, applyInTransaction } from './schema-effects.ts';

export type CollectionWithFields = Collection & { fields: Field[] };

/** Longest a schema change's transaction may run (see schemaChange). */
export const SCHEMA_CHANGE_TIMEOUT_MS = 120_000;

export const liveFields = { fields: { where: { deletedAt: null } } } as const;

/** Zod issues into the bag under Laravel keys. */
export function bagZod(bag: ErrorBag, err: z.ZodError, prefix = ''): void {
  for (const issue of err.issues) {
    const key = [prefix, ...issue.path.map(String)].filter(Boolean).join('.') || 'body';
    const text = issue.code === 'invalid_type' && /received undefined/.test(issue.message) ? 'This value is required.' : issue.message;
    bag.add(key, text);
  }
}

export function parseOrThrow<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const parsed = schema.safeParse(input ?? {});
  if (!parsed.success) {
    const bag = new ErrorBag();
    bagZod(bag, parsed.error);
    bag.throwIfAny();
  }
  return parsed.data as z.output<T>;
}

/** A live collection of the project by slug with its live fields, or 404 `Collection not found.` */
export async function findCollection(db: Tx, projectId: number, slug: string): Promise<CollectionWithFields> {
  const c = await db.collection.findUnique({ where: { projectId_slug: { projectId, slug } }, include: liveFields });
  if (!c) throw notFound('Collection not found.');
  return c;
}

const IN_TRANSACTION = 'collections:in-transaction';
const DEFERRED_EFFECTS = 'collections:deferred-effects';

/**
 * A context whose operations join the caller's transaction instead of opening their own (seeding a
 * whole content model atomically). Prisma cannot nest interactive transactions on every adapter.
 * Index work runs inside the transaction, unless `deferred` collects it for the caller to run after
 * its commit (`applyAfterCommit`): a transaction that also rewrote entries (a field rename) has
 * pending trigger events, and PostgreSQL builds no index on a table that has them.
 */
export function joinTransaction(ctx: Ctx, tx: Tx, deferred?: SchemaEffects): Ctx {
  const memo = new Map<string, unknown>([[IN_TRANSACTION, true]]);
  markJoinedTransaction(tx);
  if (deferred) memo.set(DEFERRED_EFFECTS, deferred);
  return { ...ctx, db: tx as PrismaClient, memo };
}

/** Whether `ctx` came from `joinTransaction` (its db already is a transaction). */
export const inJoinedTransaction = (ctx: Ctx): boolean => ctx.memo.get(IN_TRANSACTION) === true;

/**
 * Runs a schema change: one transaction that bumps the revision first; ctx.project follows it. The
 * change records index work in `effects`; it runs after the commit (see schema-effects.ts).
 */
export async function schemaChange<T>(ctx: Ctx, fn: (tx: Tx, effects: SchemaEffects) => Promise<T>): Promise<T> {
  const effects = new SchemaEffects();
  if (ctx.memo.get(IN_TRANSACTION)) {
    ctx.project = await bumpSchemaRevision(ctx.db, ctx.project.id);
    const deferred = ctx.memo.get(DEFERRED_EFFECTS) as SchemaEffects | undefined;
    const result = await fn(ctx.db, deferred ?? effects);
    if (!deferred) await applyInTransaction(ctx.db, effects);
    return result;
  }
  let result: T;
  try {
    result = await ctx.db.$transaction(
      async (tx) => {
        ctx.project = await bumpSchemaRevision(tx, ctx.project.id);
        return fn(tx, effects);
      },
      // Re-adding a deleted field's name rewrites the entries that still hold its values, which on a
      // large collection outlasts Prisma's 5 s default; statement_timeout still bounds each statement.
      { timeout: SCHEMA_CHANGE_TIMEOUT_MS, maxWait: 10_000 },
    );
  } catch (err) {
    // The project row lock makes this unreachable in practice; kept so a race can never be a 500.
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') {
      throw validationFailed({ slug: ['The slug has already been taken.'] });
    }
    throw err;
  }
  await applyAfterCommit(ctx.services, effects, ctx.project.id, ctx.project.schemaRevision);
  return result;
}
