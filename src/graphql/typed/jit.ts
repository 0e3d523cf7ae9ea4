import { useGraphQlJit } from '@envelop/graphql-jit';
import { Kind, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';

type JitPlugin = ReturnType<typeof useGraphQlJit>;

/**
 * graphql-jit compiles each document into a function once and runs that instead of graphql-js's
 * interpreter. @envelop/graphql-jit caches compiled documents by document object only, but here
 * one parsed document (Yoga's parse cache is shared) runs against many project schemas, and a
 * document with several operations runs whichever `operationName` asks for. So: one JIT cache per
 * schema, and documents with more than one operation run on graphql-js.
 */
export function useSchemaAwareJit(opts: { onCompileError?: (error: unknown) => void } = {}): Plugin {
  const perSchema = new WeakMap<GraphQLSchema, JitPlugin>();
  const jitFor = (schema: GraphQLSchema): JitPlugin => {
    let jit = perSchema.get(schema);
    if (!jit) {
      jit = useGraphQlJit(
        {},
        {
          enableIf: (args) => args.document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION).length === 1,
          onError: (result) => opts.onCompileError?.(result),
        },
      );
      perSchema.set(schema, jit);
    }
    return jit;
  };
  return {
    onExecute(payload) {
      return jitFor(payload.args.schema).onExecute?.(payload as never);
    },
  };
}
