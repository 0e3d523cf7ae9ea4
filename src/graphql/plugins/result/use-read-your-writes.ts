import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { EdgeServices } from '../../../edge/services.ts';
import { afterWrite } from '../../../edge/pipeline/stages.ts';
import type { GraphQLContext } from '../../builder.ts';

/**
 * Yoga plugin: after a mutation, this replica forgets the project's cached authentication (and with
 * it the content generations its read caches key by) before the response goes out, so the client's
 * next read here sees its own write without waiting for the change notification (src/auth/auth-cache.ts).
 * The REST adapter does the same for every non-GET route.
 */
export function useReadYourWrites(services: EdgeServices): Plugin<GraphQLContext> {
  return {
    onExecute({ args }) {
      if (!services.authCache || getOperationAST(args.document, args.operationName)?.operation !== 'mutation') return;
      const context = args.contextValue as GraphQLContext;
      return {
        async onExecuteDone() {
          const ctx = await context.auth().catch(() => undefined);
          if (ctx) afterWrite(services, ctx);
        },
      };
    },
  };
}
