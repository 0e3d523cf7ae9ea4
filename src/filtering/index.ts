import type { Prisma } from '../db/client.ts';
import type { Tx } from '../db/client.ts';
import type { CollectionSchema } from '../collections/model.ts';
import { validationFailed } from '../errors.ts';

export interface WhereOptions {
  db: Tx;
  projectId: number;
  collection: CollectionSchema;
  /** Which JSONB column holds field values: the working draft or the published copy. */
  column: 'data' | 'published_data';
  /** SQL alias of the entries table in the surrounding query. */
  alias: string;
}

/**
 * Compiles a `where` filter (the qs-parsed object of `where[...]` or the GraphQL input, normalised to
 * the same shape) into a SQL condition over `alias`. Field names map to known fields only; every value
 * is a bound parameter. Throws a 422 AppError naming the offending key.
 *
 * (Issue 5 replaces this placeholder with the full operator set.)
 */
export async function compileWhere(where: unknown, _opts: WhereOptions): Promise<Prisma.Sql | null> {
  if (where === undefined || where === null || (typeof where === 'object' && Object.keys(where).length === 0)) return null;
  throw validationFailed({ where: ['Filtering is not available yet.'] });
}
