import type { FastifyRequest } from 'fastify';
import type { Plugin } from 'graphql-yoga';
import type { Ctx } from '../../../context.ts';
import { isCredentialRefusal } from '../../../edge/pipeline/index.ts';
import type { EdgeServices } from '../../../edge/services.ts';
import { manifestScopeByUuid, type ManifestScope } from '../../../persisted/operations.ts';
import { gateError, type AuthOf, type ServerContext } from './gate.ts';

/** Who is asking: a token's context, or nobody, who may only introspect the core schema. */
export type Caller = { ctx: Ctx } | { ctx: null; scope: ManifestScope | null; refused: unknown };

/** The caller each operation's request resolved to, for the gate's later steps. */
export type Callers = WeakMap<Request, Caller>;

// GraphiQL's unfilled headers (`<project uuid>`, `Bearer <token>`) or none at all.
const unfilled = (value: string | null) => value === null || value.trim() === '' || /^(bearer\s+)?<[^>]*>$/i.test(value.trim());
const placeholderCredentials = (request: Request) => unfilled(request.headers.get('project-id')) || unfilled(request.headers.get('authorization'));

/**
 * Gate steps 1-2 (src/graphql/plugins/request/gate.ts): credentials and budgets, through the
 * pipeline's `admit` (src/edge/pipeline/), which charges refused credentials to the client address's
 * budget as it does for REST. Introspection is answered without credentials (GraphiQL loads the
 * schema before its headers are filled in), so missing or unfilled credentials go on as nobody;
 * credentials that look real but fail are refused with their 400/401 at once, so a mistyped token
 * shows why the project's types are missing. A spent budget is final either way.
 */
export function useCredentials(opts: { services: EdgeServices; authOf: AuthOf; callers: Callers }): Plugin {
  const { services, authOf, callers } = opts;

  async function callerOf(request: Request, req: FastifyRequest): Promise<Caller> {
    try {
      return { ctx: await authOf(req) };
    } catch (err) {
      const anonymous = !request.headers.has('project-id');
      if (!isCredentialRefusal(err) || (!anonymous && !placeholderCredentials(request))) throw err;
      // The project a header names binds by its manifest even when nothing authenticated.
      const header = request.headers.get('project-id');
      return { ctx: null, scope: header ? await manifestScopeByUuid(services.database.prisma, header.trim(), services.trustedDocuments) : null, refused: err };
    }
  }

  const plugin: Plugin<Record<string, unknown>, ServerContext> = {
    async onParams({ request, context }) {
      try {
        callers.set(request, await callerOf(request, (context as unknown as ServerContext).req));
      } catch (err) {
        throw gateError(err);
      }
    },
  };
  return plugin as Plugin;
}
