import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Pipeline } from '../../../edge/pipeline/index.ts';
import type { GraphQLContext } from '../../context.ts';

/**
 * The pipeline's afterWrite stage for GraphQL: after a mutation, this replica forgets the project's
 * cached authentication (and with it the content generations its read caches key by) before the
 * response goes out, so the client's next read here sees its own write without waiting for the
 * change notification (src/auth/auth-cache.ts). The REST adapter (src/http/server.ts) calls the same
 * stage after every non-GET route.
 */
export function useReadYourWrites(pipeline: Pipeline): Plugin<GraphQLContext> {
  return {
    onExecute({ args }) {
      if (!pipeline.services.authCache || getOperationAST(args.document, args.operationName)?.operation !== 'mutation') return;
      const context = args.contextValue as GraphQLContext;
      return {
        async onExecuteDone() {
          const ctx = await context.auth().catch(() => undefined);
          if (ctx) pipeline.afterWrite(ctx);
        },
      };
    },
  };
}
