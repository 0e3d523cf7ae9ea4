import { createHash } from 'node:crypto';
import { parse } from 'graphql';
import { LRUCache } from 'lru-cache';
import { authorize, type Ctx } from '../context.ts';
import { WHOLE_PROJECT, authorizeProjectAdmin } from '../admin-scope.ts';
import { withinTransaction, type PrismaClient } from '../db/client.ts';
import { validationFailed, type FieldErrors } from '../errors.ts';
import { lockProjectRow } from '../projects/operations.ts';
import { isUuid } from '../uuid.ts';
import type { TrustedDocumentMemory } from './memory.ts';

/**
 * Trusted documents (docs/graphql.md, "Trusted documents"): a project's manifest of the GraphQL
 * documents it allows, by the sha256 (hex) of their exact text, and whether only those may run.
 * Registering is `admin`; the GraphQL endpoint asks `trustedDocumentsEnforced` and
 * `trustedDocument` per request.
 */

/** Most documents one manifest may hold; a generated manifest of a large app has a few hundred. */
export const MAX_TRUSTED_DOCUMENTS = 5_000;
/** Longest document text accepted into a manifest. */
export const MAX_TRUSTED_DOCUMENT_BYTES = 64 * 1024;
export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

export interface ManifestInput {
  /** Document texts, or `{ hash: text }` (GraphQL Code Generator's persisted-documents.json). */
  documents?: string[] | Record<string, string>;
  /** Only documents of the manifest may run. */
  enforced?: boolean;
}

export interface ManifestSummary {
  enforced: boolean;
  documents: Array<{ hash: string; createdAt: Date }>;
}

function checkedDocuments(input: NonNullable<ManifestInput['documents']>): Map<string, string> {
  const entries: Array<[string | null, string]> = Array.isArray(input) ? input.map((d) => [null, d]) : Object.entries(input);
  const errors: FieldErrors = {};
  if (entries.length > MAX_TRUSTED_DOCUMENTS) errors.documents = [`A manifest holds at most ${MAX_TRUSTED_DOCUMENTS} documents.`];
  const out = new Map<string, string>();
  entries.forEach(([given, text], i) => {
    const key = `documents.${given ?? i}`;
    if (typeof text !== 'string' || text.trim() === '') return void (errors[key] = ['A document must be non-empty GraphQL text.']);
    if (Buffer.byteLength(text) > MAX_TRUSTED_DOCUMENT_BYTES) return void (errors[key] = [`A document may be at most ${MAX_TRUSTED_DOCUMENT_BYTES} bytes.`]);
    const hash = sha256Hex(text);
    if (given !== null && given.toLowerCase() !== hash) return void (errors[key] = [`The hash does not match the document (its sha256 is ${hash}).`]);
    try {
      parse(text, { maxTokens: 50_000 });
    } catch (err) {
      return void (errors[key] = [`Not a GraphQL document: ${(err as Error).message}`]);
    }
    out.set(hash, text);
  });
  if (Object.keys(errors).length) throw validationFailed(errors);
  return out;
}

/**
 * Replaces a project's manifest: `documents`, when given, become the whole allowed set (in one
 * transaction); `enforced`, when given, switches enforcement. Turning enforcement on with an empty
 * manifest is refused: it would lock every client out. For callers that already authorized (the
 * CLI acts as the operator); the API goes through `putManifest`. `memory`, this replica's, forgets
 * the project before the answer goes out; the other replicas hear of the commit on the change feed.
 */
export async function replaceManifest(db: PrismaClient, projectId: number, input: ManifestInput, memory?: TrustedDocumentMemory): Promise<ManifestSummary> {
  const documents = input.documents === undefined ? undefined : checkedDocuments(input.documents);
  await withinTransaction(db, async (tx) => {
    // Concurrent replacements queue: otherwise two would both clear the list and insert the same
    // hashes (a unique violation, a 500), or both create the missing manifest row.
    await lockProjectRow(tx, projectId);
    if (documents) {
      await tx.trustedDocument.deleteMany({ where: { projectId } });
      await tx.trustedDocument.createMany({ data: [...documents].map(([hash, document]) => ({ projectId, hash, document })) });
    }
    const enforced = input.enforced;
    if (enforced && (await tx.trustedDocument.count({ where: { projectId } })) === 0) {
      throw validationFailed({ enforced: ['Register at least one document before enforcing trusted documents.'] });
    }
    await tx.trustedDocumentManifest.upsert({
      where: { projectId },
      create: { projectId, enforced: enforced ?? false },
      update: enforced === undefined ? {} : { enforced },
    });
  });
  memory?.forgetProject(projectId);
  return readManifest(db, projectId);
}

export async function readManifest(db: PrismaClient, projectId: number): Promise<ManifestSummary> {
  const [manifest, documents] = await Promise.all([
    db.trustedDocumentManifest.findUnique({ where: { projectId } }),
    db.trustedDocument.findMany({ where: { projectId }, select: { hash: true, createdAt: true }, orderBy: { hash: 'asc' } }),
  ]);
  return { enforced: manifest?.enforced ?? false, documents };
}

export async function putManifest(ctx: Ctx, input: ManifestInput): Promise<ManifestSummary> {
  authorizeProjectAdmin(ctx, WHOLE_PROJECT.trustedDocuments);
  return replaceManifest(ctx.db, ctx.project.id, input, ctx.services.trustedDocuments);
}

export async function getManifest(ctx: Ctx): Promise<ManifestSummary> {
  authorizeProjectAdmin(ctx, WHOLE_PROJECT.trustedDocuments);
  return readManifest(ctx.db, ctx.project.id);
}

export const serializeManifest = (m: ManifestSummary) => ({
  enforced: m.enforced,
  documents: m.documents.map((d) => ({ hash: d.hash, created_at: d.createdAt.toISOString() })),
});

/** Whose manifest a request answers to: the project of its credentials, or of its `project-id` header alone. */
export interface ManifestScope {
  db: PrismaClient;
  projectId: number;
  /**
   * This replica's memory of manifests (src/persisted/memory.ts), kept true by the change feed; absent
   * where there is no feed (AUTH_CACHE_MS=0, embedded PGlite), and then every request reads the database.
   */
  memory?: TrustedDocumentMemory;
  /** The enforcement flag when authentication already read it (one statement less per request). */
  enforced?: boolean;
}

export const manifestScopeOf = (ctx: Pick<Ctx, 'db' | 'project' | 'services' | 'trustedDocumentsEnforced'>): ManifestScope => ({
  db: ctx.db,
  projectId: ctx.project.id,
  memory: ctx.services.trustedDocuments,
  enforced: ctx.trustedDocumentsEnforced,
});

/** Whether only the project's trusted documents may run. */
export async function trustedDocumentsEnforced({ db, projectId, memory, enforced: read }: ManifestScope): Promise<boolean> {
  if (read !== undefined) return read;
  const known = memory?.enforced(projectId);
  if (known !== undefined) return known;
  const ticket = memory?.ticket();
  const row = await db.trustedDocumentManifest.findUnique({ where: { projectId }, select: { enforced: true } });
  const enforced = row?.enforced ?? false;
  if (ticket) memory!.keepEnforced(ticket, projectId, enforced);
  return enforced;
}

/** The text of one of the project's trusted documents, by its sha256 hex, or null. */
export async function trustedDocument({ db, projectId, memory }: ManifestScope, hash: string): Promise<string | null> {
  if (!/^[0-9a-f]{64}$/i.test(hash)) return null;
  const lower = hash.toLowerCase();
  const known = memory?.text(projectId, lower);
  if (known !== undefined) return known;
  const ticket = memory?.ticket();
  const row = await db.trustedDocument.findUnique({ where: { projectId_hash: { projectId, hash: lower } }, select: { document: true } });
  const text = row?.document ?? null;
  if (ticket) memory!.keepText(ticket, projectId, lower, text);
  return text;
}

/** uuid → id of the projects `manifestScopeByUuid` found (a project's id never changes). */
const projectIds = new LRUCache<string, number>({ max: 10_000 });

/**
 * The manifest scope of the project a `project-id` header names, for a request whose credentials did
 * not authenticate (its manifest applies to every caller, token or not); null for an unknown project.
 */
export async function manifestScopeByUuid(db: PrismaClient, projectUuid: string, memory?: TrustedDocumentMemory): Promise<ManifestScope | null> {
  if (!isUuid(projectUuid)) return null;
  const uuid = projectUuid.toLowerCase();
  let projectId = projectIds.get(uuid);
  if (projectId === undefined) {
    const row = await db.project.findUnique({ where: { uuid }, select: { id: true } });
    if (!row) return null;
    projectIds.set(uuid, (projectId = row.id));
  }
  return { db, projectId, memory };
}
