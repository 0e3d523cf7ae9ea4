import { getOperationAST } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { mutationOutcome, type Pipeline } from '../../../edge/pipeline/index.ts';
import type { GraphQLContext } from '../../context.ts';

/**
 * The pipeline's afterWrite stage for GraphQL: after a mutation, this replica forgets the project's
 * cached authentication (and with it the content generations its read caches key by) before the
 * response goes out, so the client's next read here sees its own write without waiting for the
 * change notification (src/auth/auth-cache.ts). The REST adapter (src/http/server.ts) calls the same
 * stage after every non-GET route.
 *
 * With database replicas: a query's reads may go to a replica (`pipeline.readOnly`; a mutation's,
 * its read-back included, stay on the primary), and a mutation's answer carries `Read-After`, the
 * position a client sends back so that its next read on any API replica sees the write.
 */
export function useReadYourWrites(pipeline: Pipeline): Plugin<GraphQLContext> {
  const positions = new WeakMap<Request, string>();
  const replicas = pipeline.services.replicas !== undefined;
  return {
    onExecute({ args }) {
      const operation = getOperationAST(args.document, args.operationName)?.operation;
      const context = args.contextValue as GraphQLContext & { req?: object };
      if (operation === 'query' && replicas && context.req) pipeline.readOnly(context.req);
      if (operation !== 'mutation' || (!pipeline.services.authCache && !replicas)) return;
      return {
        async onExecuteDone({ result }) {
          const ctx = await context.auth().catch(() => undefined);
          if (!ctx) return;
          // A mutation whose every root field failed committed nothing: no WAL position to ask for.
          const position = await pipeline.afterWrite(ctx, isAsyncIterable(result) ? 'succeeded' : mutationOutcome(result));
          if (position) positions.set(context.request, position);
        },
      };
    },
    onResponse({ request, response }) {
      const position = positions.get(request);
      if (position) response.headers.set('read-after', position);
    },
  };
}
