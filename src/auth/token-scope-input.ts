import type { Tx } from '../db/client.ts';
import { ErrorBag } from '../errors.ts';

/** The scope a new token is issued with, as stored (null: no limit). */
export interface StoredScope {
  collections: string[] | null;
  fields: Record<string, string[]> | null;
  expiresAt: Date | null;
}

export interface ScopeInput {
  collections?: unknown;
  fields?: unknown;
  expiresAt?: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a token's scope against the project's content model: every collection slug must name a
 * collection of the project, every field a top-level field of its collection, a collection given
 * fields must be within `collections` when both are given, and an expiry must lie in the future.
 * Every problem is reported at once (422), keyed like the body (`collections.1`, `fields.posts.0`).
 * The model may change later: a slug or field removed since simply reaches nothing.
 */
export async function checkScopeInput(db: Tx, projectId: number, input: ScopeInput, now = new Date()): Promise<StoredScope> {
  const bag = new ErrorBag();
  const model = await db.collection.findMany({
    where: { projectId },
    select: { slug: true, fields: { where: { deletedAt: null, parentFieldId: null }, select: { name: true } } },
  });
  const fieldsOf = new Map(model.map((c) => [c.slug, new Set(c.fields.map((f) => f.name))]));

  let collections: string[] | null = null;
  if (input.collections !== undefined && input.collections !== null) {
    if (!Array.isArray(input.collections) || input.collections.length === 0) bag.add('collections', 'The collections field must be a non-empty array of collection slugs.');
    else {
      input.collections.forEach((slug, i) => {
        if (typeof slug !== 'string' || !fieldsOf.has(slug)) bag.add(`collections.${i}`, `Unknown collection "${String(slug)}".`);
      });
      collections = [...new Set(input.collections.filter((s): s is string => typeof s === 'string'))];
    }
  }

  let fields: Record<string, string[]> | null = null;
  if (input.fields !== undefined && input.fields !== null) {
    if (!isRecord(input.fields) || Object.keys(input.fields).length === 0) bag.add('fields', 'The fields field must be an object of collection slug → array of field names.');
    else {
      fields = {};
      for (const [slug, names] of Object.entries(input.fields)) {
        const known = fieldsOf.get(slug);
        if (!known) bag.add(`fields.${slug}`, `Unknown collection "${slug}".`);
        else if (collections && !collections.includes(slug)) bag.add(`fields.${slug}`, `The collection "${slug}" is not in the token's collections.`);
        if (!Array.isArray(names) || names.length === 0) {
          bag.add(`fields.${slug}`, 'List at least one field name.');
          continue;
        }
        names.forEach((name, i) => {
          if (typeof name !== 'string' || (known && !known.has(name))) bag.add(`fields.${slug}.${i}`, `Unknown field "${String(name)}" in collection "${slug}".`);
        });
        fields[slug] = [...new Set(names.filter((n): n is string => typeof n === 'string'))];
      }
    }
  }

  let expiresAt: Date | null = null;
  if (input.expiresAt !== undefined && input.expiresAt !== null) {
    const at = typeof input.expiresAt === 'string' || input.expiresAt instanceof Date ? new Date(input.expiresAt) : new Date(NaN);
    if (Number.isNaN(at.getTime())) bag.add('expires_at', 'The expires_at field must be an ISO 8601 date-time.');
    else if (at.getTime() <= now.getTime()) bag.add('expires_at', 'The expires_at field must be in the future.');
    else expiresAt = at;
  }
  bag.throwIfAny();
  return { collections, fields, expiresAt };
}
