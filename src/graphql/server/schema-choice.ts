import type { GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { TypedSchemaCache } from '../schema/typed/cache.ts';
import { gateError } from '../plugins/request/gate.ts';
import type { Callers } from '../plugins/request/use-credentials.ts';
import { isIntrospectionOnly } from './introspection.ts';
import { schemaForGrants } from '../schema/common/schema-variant.ts';

/**
 * Which schema an operation runs against, after the gate's document step: a token's project gets its
 * typed schema, keyed by the `schema_revision` authentication read, so every replica notices a schema
 * change on its next request (a scoped token gets its scope's variant, without what it cannot reach,
 * and every token the variant without the root fields its abilities do not reach); nobody gets the core schema, and only for introspection (else the
 * refusal the credentials step kept is answered).
 */
export function useSchemaChoice(opts: { callers: Callers; schemas: TypedSchemaCache; coreSchema: GraphQLSchema; maxTokens: number }): Plugin {
  const { callers, schemas, coreSchema, maxTokens } = opts;
  const chosen = new WeakMap<Request, GraphQLSchema>();
  return {
    async onParams({ request, params }) {
      try {
        const caller = callers.get(request);
        if (caller?.ctx) {
          const { ctx } = caller;
          const schema = await schemas.schemaFor({ projectId: ctx.project.id, schemaRevision: ctx.project.schemaRevision, scope: ctx.scope });
          // Without the root fields the token lacks the ability for: it is not offered what it may not call.
          chosen.set(request, ctx.actor.kind === 'token' ? schemaForGrants(schema, ctx.actor.abilities) : schema);
          return;
        }
        if (!isIntrospectionOnly(params.query, maxTokens)) throw caller?.refused;
        chosen.set(request, coreSchema);
      } catch (err) {
        throw gateError(err);
      }
    },
    onEnveloped({ setSchema, context }) {
      const request = (context as { request?: Request } | undefined)?.request;
      setSchema((request && chosen.get(request)) ?? coreSchema);
    },
  };
}
