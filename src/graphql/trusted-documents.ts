import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Plugin } from 'graphql-yoga';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { Ctx } from '../context.ts';
import { sha256Hex, trustedDocument, trustedDocumentsEnforced } from '../persisted/operations.ts';

interface ServerContext {
  req: FastifyRequest;
  reply: FastifyReply;
}

const refused = (code: string, message: string, status: number) => ({ message, extensions: { code, http: { status } } });

/**
 * Trusted documents (docs/graphql.md): for a project that enforces its manifest, a request runs only
 * a registered document, named by its hash (`extensions.persistedQuery.sha256Hash`, the APQ shape)
 * or sent as its exact text. Anything else is refused before parsing: an unknown hash with
 * PERSISTED_QUERY_NOT_FOUND (404), other text with TRUSTED_DOCUMENTS_ONLY (403). Projects that do
 * not enforce pass through untouched (automatic persisted queries then handle hashes). Must come
 * before the APQ plugin, so a refused text is never registered as a persisted query.
 */
export function useTrustedDocuments(ctxFor: (request: Request, server: ServerContext) => Promise<Ctx>): Plugin<Record<string, unknown>, ServerContext> {
  const ctxs = new WeakMap<Request, Ctx>();
  const texts = new WeakMap<Request, string>();
  const inner = usePersistedOperations({
    allowArbitraryOperations: async (request) => {
      const ctx = ctxs.get(request);
      const text = texts.get(request);
      return !!ctx && text !== undefined && (await trustedDocument(ctx, sha256Hex(text))) === text;
    },
    getPersistedOperation: (hash, request) => {
      const ctx = ctxs.get(request);
      return ctx ? trustedDocument(ctx, hash) : null;
    },
    customErrors: {
      notFound: refused('PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound: this project runs only its trusted documents, and none has this hash.', 404),
      persistedQueryOnly: refused('TRUSTED_DOCUMENTS_ONLY', 'This project runs only its trusted documents: send a registered document or its sha256 hash.', 403),
      keyNotFound: refused('TRUSTED_DOCUMENTS_ONLY', 'This project runs only its trusted documents: send a registered document or its sha256 hash.', 403),
    },
  });
  return {
    async onParams(payload) {
      // Authentication failures are answered by the schema choice (src/graphql/yoga.ts), not here.
      const ctx = await ctxFor(payload.request, payload.context).catch(() => null);
      if (!ctx || ctx.actor.kind !== 'token' || !(await trustedDocumentsEnforced(ctx))) return;
      ctxs.set(payload.request, ctx);
      if (typeof payload.params.query === 'string') texts.set(payload.request, payload.params.query);
      await inner.onParams?.(payload as unknown as Parameters<NonNullable<typeof inner.onParams>>[0]);
    },
  };
}
