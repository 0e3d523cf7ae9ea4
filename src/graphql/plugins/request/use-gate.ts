import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Plugin } from 'graphql-yoga';
import { Kind, parse, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { Ctx } from '../../../context.ts';
import type { EdgeServices } from '../../../edge/services.ts';
import { drawAddressBudget } from '../../../edge/pipeline/stages.ts';
import { manifestScopeByUuid, manifestScopeOf, type ManifestScope } from '../../../persisted/operations.ts';
import type { TypedSchemaCache } from '../../typed/cache.ts';
import { maskError } from '../result/mask-error.ts';
import { checkDocumentSize, useDocumentLimits } from '../validation/use-document-limits.ts';
import { useQueryLimits } from '../../limits.ts';
import { documentOf, type PersistedQueries } from './use-trusted-documents.ts';

/**
 * The one gate every GraphQL operation passes, whatever brought it (docs/graphql.md, "One gate for
 * every transport"): POST and GET `/graphql`, both modes of `/graphql/stream`, subscriptions,
 * persisted queries by hash; the cached-answer lane (src/graphql/cached-answers.ts) takes the same
 * steps through the same functions. In order:
 *  1. credentials: the project header and bearer token (`admit`, once per HTTP request);
 *  2. budgets: the token's, or the client address's for a request without valid credentials;
 *  3. trusted documents, then automatic persisted queries: which text runs (`documentOf`);
 *  4. document limits: size and nesting on the text, then (Yoga's parse and validation, with the
 *     rules of useDocumentLimits) aliases, directives, introspection, then depth and cost before
 *     execution (useQueryLimits);
 *  5. abilities, checked by each resolver on the context step 1 made.
 * Steps 1-3 and the schema choice run in Yoga's `onParams`, which `/graphql` reaches through Yoga's
 * request handling and `/graphql/stream` through `yoga.getResultForParams` (subscriptions/
 * single-connection.ts); steps 4-5 run in the envelop both share.
 */

interface ServerContext {
  req: FastifyRequest;
  reply: FastifyReply;
}

export interface GateOptions {
  services: EdgeServices;
  schemas: TypedSchemaCache;
  coreSchema: GraphQLSchema;
  /** Steps 1-2 for requests with credentials: one promise per HTTP request, shared with resolvers and the cached-answer lane. */
  authOf: (req: FastifyRequest) => Promise<Ctx>;
  apq: PersistedQueries;
  limits: { maxTokens: number; maxAliases: number; maxDirectives: number; maxDepth: number; maxComplexity: number; introspection: boolean };
}

export interface Gate {
  /** Yoga plugins of the gate, in its order: first in the plugin list. */
  plugins: Plugin[];
  /** Steps 1-2 alone, for requests that carry no operation (reserving or opening a stream). */
  credentials(req: FastifyRequest): Promise<Ctx>;
}

/**
 * A document whose every operation asks only for `__schema` / `__type` / `__typename`. Only called on
 * text that passed `checkDocumentSize`; syntax errors: not introspection (Yoga reports them).
 */
function isIntrospectionOnly(query: unknown, maxTokens: number): boolean {
  if (typeof query !== 'string') return false;
  let doc: DocumentNode;
  try {
    doc = parse(query, { maxTokens });
  } catch {
    return false;
  }
  return doc.definitions.every(
    (d) =>
      d.kind === Kind.FRAGMENT_DEFINITION ||
      (d.kind === Kind.OPERATION_DEFINITION && d.selectionSet.selections.every((s) => s.kind === Kind.FIELD && s.name.value.startsWith('__'))),
  );
}

// GraphiQL's unfilled headers (`<project uuid>`, `Bearer <token>`) or none at all.
const unfilled = (value: string | null) => value === null || value.trim() === '' || /^(bearer\s+)?<[^>]*>$/i.test(value.trim());
const placeholderCredentials = (request: Request) => unfilled(request.headers.get('project-id')) || unfilled(request.headers.get('authorization'));

/** Who is asking: a token's context, or nobody, who may only introspect the core schema. */
type Caller = { ctx: Ctx } | { ctx: null; scope: ManifestScope | null; refused: unknown };

// AppErrors mapped here: Yoga would read an AppError's `errors` field as an AggregateError's list.
const mapped = (err: unknown) => maskError(err, 'Unexpected error.');

export function createGate(opts: GateOptions): Gate {
  const { services, schemas, coreSchema, authOf, apq, limits } = opts;
  const chosen = new WeakMap<Request, GraphQLSchema>();

  const credentials = async (req: FastifyRequest): Promise<Ctx> => {
    try {
      return await authOf(req);
    } catch (err) {
      await drawAddressBudget(services, req.ip);
      throw err;
    }
  };

  /**
   * Steps 1-2. A request without valid credentials pays from its address's budget before its document
   * is looked at. Introspection is answered without them (GraphiQL loads the schema before its headers
   * are filled in), so unfilled credentials go on as nobody; credentials that look real but fail are
   * refused with their 400/401 at once, so a mistyped token shows why the project's types are missing.
   */
  async function callerOf(request: Request, req: FastifyRequest): Promise<Caller> {
    const anonymous = !request.headers.has('project-id');
    if (anonymous) await drawAddressBudget(services, req.ip);
    try {
      return { ctx: await authOf(req) };
    } catch (err) {
      if (!anonymous) await drawAddressBudget(services, req.ip);
      if (!anonymous && !placeholderCredentials(request)) throw err;
      // The project a header names binds by its manifest even when nothing authenticated.
      const header = request.headers.get('project-id');
      return { ctx: null, scope: header ? await manifestScopeByUuid(services.database.prisma, header.trim(), services.trustedDocuments) : null, refused: err };
    }
  }

  const gate: Plugin<Record<string, unknown>, ServerContext> = {
    async onParams({ request, params, setParams, context }) {
      try {
        const caller = await callerOf(request, (context as unknown as ServerContext).req);
        const query = await documentOf(caller.ctx ? manifestScopeOf(caller.ctx) : caller.scope, params, apq);
        // Without a text (none sent, or not a string), Yoga's parameter check answers.
        if (query !== undefined) {
          if (query !== params.query) setParams({ ...params, query });
          // Measured before anything else is done with the text: a refused document costs a bounded scan.
          checkDocumentSize(query, limits.maxTokens);
        }
        if (caller.ctx) {
          // Keyed by the `schema_revision` authentication read: every replica notices a schema change on its next request.
          chosen.set(request, await schemas.schemaFor({ projectId: caller.ctx.project.id, schemaRevision: caller.ctx.project.schemaRevision }));
          return;
        }
        if (!isIntrospectionOnly(query, limits.maxTokens)) throw caller.refused;
        chosen.set(request, coreSchema);
      } catch (err) {
        throw mapped(err);
      }
    },
    onEnveloped({ setSchema, context }) {
      const request = (context as { request?: Request } | undefined)?.request;
      setSchema((request && chosen.get(request)) ?? coreSchema);
    },
  };

  return {
    plugins: [
      gate as Plugin,
      useDocumentLimits({ maxTokens: limits.maxTokens, maxAliases: limits.maxAliases, maxDirectives: limits.maxDirectives }),
      useQueryLimits({ maxDepth: limits.maxDepth, maxComplexity: limits.maxComplexity, introspection: limits.introspection }),
    ],
    credentials,
  };
}
