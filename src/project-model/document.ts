import { z } from 'zod';
import { zodToAppError } from '../errors.ts';

/**
 * The schema document (`cms schema snapshot`, GET /api/project/schema): a project's content model
 * as data, to keep in git and carry between environments. Collections and fields are matched by
 * uuid first, then by slug (collections) or name within the same level (fields), so a model made by
 * hand in two places still lines up, and a rename made where the uuids travelled is seen as one.
 * Relation targets are collection slugs (ids differ per database). A section left out of the
 * document (`locales`, `webhooks`, `trusted_documents`) is not managed: apply leaves it as it is.
 */
export const SCHEMA_FORMAT = 'content-gateway/schema';
export const SCHEMA_VERSION = 1;

export interface FieldDoc {
  uuid?: string;
  type: string;
  label: string;
  name: string;
  description: string | null;
  placeholder: string | null;
  options: Record<string, unknown>;
  validations: Record<string, unknown>;
  order?: number;
  children?: FieldDoc[];
}

export interface CollectionDoc {
  uuid?: string;
  name: string;
  slug: string;
  is_singleton: boolean;
  order?: number;
  fields: FieldDoc[];
}

/** Webhooks without their secrets: a secret never leaves the server it was set on. */
export interface WebhookDoc {
  uuid?: string;
  name: string;
  description: string | null;
  url: string;
  events: string[];
  sources: string[];
  payload: boolean;
  status: boolean;
  /** Collection slugs; empty = every collection. */
  collections: string[];
}

/** A webhook as the REST layout shows it, minus its secret: what `webhookDoc` reads. */
export type WebhookShown = Omit<WebhookDoc, 'collections'> & { uuid: string; collections: Array<{ slug: string }> };

/** The document's form of a webhook as GET /api/webhooks shows it (this server's or a remote one's). */
export const webhookDoc = (w: WebhookShown): WebhookDoc & { uuid: string } => ({
  uuid: w.uuid,
  name: w.name,
  description: w.description,
  url: w.url,
  events: w.events,
  sources: w.sources,
  payload: w.payload,
  status: w.status,
  collections: w.collections.map((c) => c.slug),
});

export interface TrustedDocumentsDoc {
  enforced: boolean;
  /** sha256 (hex) of the exact text → the text. */
  documents: Record<string, string>;
}

export interface SchemaDocument {
  format: typeof SCHEMA_FORMAT;
  version: typeof SCHEMA_VERSION;
  locales?: { available: string[]; default: string };
  collections: CollectionDoc[];
  webhooks?: WebhookDoc[];
  trusted_documents?: TrustedDocumentsDoc;
}

const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'Must be a UUID.').transform((s) => s.toLowerCase());

// Field contents are checked by the field rules themselves (src/collections/field-rules.ts); here only
// what the document's structure needs, so there is one set of rules.
const fieldDoc: z.ZodType<FieldDoc> = z.lazy(() =>
  z
    .object({
      uuid: uuid.optional(),
      type: z.string(),
      label: z.string(),
      name: z.string(),
      description: z.string().nullish().transform((v) => v ?? null),
      placeholder: z.string().nullish().transform((v) => v ?? null),
      options: z.record(z.string(), z.unknown()).nullish().transform((v) => v ?? {}),
      validations: z.record(z.string(), z.unknown()).nullish().transform((v) => v ?? {}),
      order: z.number().int().min(0).optional(),
      children: z.array(fieldDoc).max(200).optional(),
    })
    .passthrough(),
) as z.ZodType<FieldDoc>;

const collectionDoc = z.object({
  uuid: uuid.optional(),
  name: z.string(),
  slug: z.string(),
  is_singleton: z.boolean().default(false),
  order: z.number().int().min(0).optional(),
  fields: z.array(fieldDoc).max(500).default([]),
});

const webhookDocSchema = z.object({
  uuid: uuid.optional(),
  name: z.string(),
  description: z.string().nullish().transform((v) => v ?? null),
  url: z.string(),
  events: z.array(z.string()),
  sources: z.array(z.string()),
  payload: z.boolean().default(true),
  status: z.boolean().default(true),
  collections: z.array(z.string()).default([]),
});

const documentSchema = z.object({
  format: z.literal(SCHEMA_FORMAT, { error: `Not a schema document: "format" must be "${SCHEMA_FORMAT}" (as "cms schema snapshot" writes).` }),
  version: z.literal(SCHEMA_VERSION, { error: `Unknown schema document version; this server reads version ${SCHEMA_VERSION}.` }),
  locales: z.object({ available: z.array(z.string()).min(1).max(100), default: z.string() }).optional(),
  collections: z.array(collectionDoc).max(1000),
  webhooks: z.array(webhookDocSchema).max(1000).optional(),
  trusted_documents: z.object({ enforced: z.boolean(), documents: z.record(z.string(), z.string()) }).optional(),
});

/** The document's structure, or 422 naming what is wrong (the contents are checked by each domain's rules). */
export function parseSchemaDocument(input: unknown): SchemaDocument {
  const parsed = documentSchema.safeParse(input ?? {});
  if (!parsed.success) throw zodToAppError(parsed.error);
  return parsed.data as SchemaDocument;
}

/** JSON with object keys sorted, so two equal values compare equal whatever order their keys came in. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
