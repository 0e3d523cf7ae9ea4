import type { Project } from '../db/generated/prisma/client.ts';
import type { Tx } from '../db/client.ts';

/**
 * Every collection or field change calls this first inside its transaction. The increment keys the
 * per-project GraphQL schema cache, and the row lock it takes serialises all schema changes of one
 * project (across processes), which is what makes the "name/slug already taken" checks race-free.
 */
export function bumpSchemaRevision(tx: Tx, projectId: number): Promise<Project> {
  return tx.project.update({ where: { id: projectId }, data: { schemaRevision: { increment: 1 } } });
}
