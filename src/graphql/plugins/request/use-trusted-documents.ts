import { createGraphQLError, type Plugin } from 'graphql-yoga';
import type { GraphQLError } from 'graphql';
import { manifestScopeOf, sha256Hex, trustedDocument, trustedDocumentsEnforced, type ManifestScope } from '../../../persisted/operations.ts';
import { checkDocumentSize } from '../validation/use-document-limits.ts';
import { gateError } from './gate.ts';
import type { Callers } from './use-credentials.ts';

/** What the document step reads of a request's GraphQL parameters. */
export interface DocumentParams {
  query?: unknown;
  extensions?: unknown;
}

/** Where hashes of automatic persisted queries are looked up and registered (./apq-store.ts). */
export interface PersistedQueries {
  get(hash: string): string | null | undefined | Promise<string | null | undefined>;
  set?(hash: string, query: string): unknown;
}

const refusal = (message: string, code: string, status: number): GraphQLError =>
  // spec: false, so the status holds under application/json too (src/graphql/plugins/result/use-http-statuses.ts).
  createGraphQLError(message, { extensions: { code, http: { status, spec: false } } });

const ONLY_TRUSTED = 'This project runs only its trusted documents: send a registered document or its sha256 hash.';

/** The APQ shape: `extensions.persistedQuery { version: 1, sha256Hash }`. */
export function persistedHashOf(extensions: unknown): string | undefined {
  const pq = (extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | null | undefined)?.persistedQuery;
  return pq && typeof pq === 'object' && pq.version === 1 && typeof pq.sha256Hash === 'string' ? pq.sha256Hash : undefined;
}

/**
 * The document a request runs, the trusted-documents step of the gate (./gate.ts), the same
 * for every transport and for the cached-answer lane:
 * - a project that enforces its manifest (docs/graphql.md, "Trusted documents") runs only a
 *   registered document, named by its hash (the APQ shape) or sent as its exact text. Anything else
 *   is refused before parsing: an unknown hash with PERSISTED_QUERY_NOT_FOUND (404), other text, or
 *   no document at all, with TRUSTED_DOCUMENTS_ONLY (403). `scope` is the project of the credentials,
 *   or of the `project-id` header alone when there are none: the manifest binds every caller.
 * - otherwise automatic persisted queries: a hash alone is looked up in `apq` (404 when unknown), a
 *   text with its hash is checked (PERSISTED_QUERY_MISMATCH, 400) and registered.
 * Returns the text to run, or undefined when the request names none (Yoga then answers that).
 */
export async function documentOf(scope: ManifestScope | null, params: DocumentParams, apq: PersistedQueries): Promise<string | undefined> {
  const hash = persistedHashOf(params.extensions);
  // GET requests of Apollo's PersistedQueryLink send `query=` beside the hash.
  const text = typeof params.query === 'string' && (params.query !== '' || hash === undefined) ? params.query : undefined;
  if (text !== undefined && hash !== undefined && sha256Hex(text) !== hash.toLowerCase()) {
    throw refusal('PersistedQueryMismatch', 'PERSISTED_QUERY_MISMATCH', 400);
  }
  if (scope && (await trustedDocumentsEnforced(scope))) {
    if (text !== undefined) {
      if ((await trustedDocument(scope, sha256Hex(text))) !== text) throw refusal(ONLY_TRUSTED, 'TRUSTED_DOCUMENTS_ONLY', 403);
      return text;
    }
    if (hash === undefined) throw refusal(ONLY_TRUSTED, 'TRUSTED_DOCUMENTS_ONLY', 403);
    const registered = await trustedDocument(scope, hash);
    if (registered === null) {
      throw refusal('PersistedQueryNotFound: this project runs only its trusted documents, and none has this hash.', 'PERSISTED_QUERY_NOT_FOUND', 404);
    }
    return registered;
  }
  if (hash === undefined) return text;
  if (text !== undefined) {
    await apq.set?.(hash, text);
    return text;
  }
  const known = await apq.get(hash);
  if (known === null || known === undefined) throw refusal('PersistedQueryNotFound', 'PERSISTED_QUERY_NOT_FOUND', 404);
  return known;
}

/**
 * Gate step 3 as a Yoga plugin: the text the caller (use-credentials.ts) may run replaces the
 * request's parameters, and is measured before anything else is done with it, so a refused document
 * costs a bounded scan. Without a text (none sent, or not a string), Yoga's parameter check answers.
 */
export function useTrustedDocuments(opts: { callers: Callers; apq: PersistedQueries; maxTokens: number }): Plugin {
  const { callers, apq, maxTokens } = opts;
  return {
    async onParams({ request, params, setParams }) {
      try {
        const caller = callers.get(request);
        const query = await documentOf(caller?.ctx ? manifestScopeOf(caller.ctx) : (caller?.scope ?? null), params, apq);
        if (query === undefined) return;
        if (query !== params.query) setParams({ ...params, query });
        checkDocumentSize(query, maxTokens);
      } catch (err) {
        throw gateError(err);
      }
    },
  };
}
