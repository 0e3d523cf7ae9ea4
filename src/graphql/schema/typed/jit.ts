import { useGraphQlJit } from '@envelop/graphql-jit';
import { Kind, type DocumentNode, type GraphQLSchema, type NamedTypeNode, type TypeNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';

type JitPlugin = ReturnType<typeof useGraphQlJit>;

/**
 * graphql-jit compiles each document into a function once and runs that instead of graphql-js's
 * interpreter. @envelop/graphql-jit caches compiled documents by document object only, but here
 * one parsed document (Yoga's parse cache is shared) runs against many project schemas, and a
 * document with several operations runs whichever `operationName` asks for. So: one JIT cache per
 * schema, and documents with more than one operation run on graphql-js. So do operations with
 * input-object variables: graphql-jit unrolls variable coercion per input type and overflows the
 * stack on recursive inputs (`PostWhere.or: [PostWhere!]`).
 */
const named = (t: TypeNode): NamedTypeNode => (t.kind === Kind.NAMED_TYPE ? t : named(t.type));

function jitSafe(schema: GraphQLSchema, document: DocumentNode, safety: WeakMap<DocumentNode, boolean>): boolean {
  let safe = safety.get(document);
  if (safe === undefined) {
    const ops = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    // Duck-typed: under vitest the schema's types may come from graphql's other (CJS/ESM) build.
    safe = ops.length === 1 && !(ops[0].variableDefinitions ?? []).some((v) => schema.getType(named(v.type).name.value)?.constructor.name === 'GraphQLInputObjectType');
    safety.set(document, safe);
  }
  return safe;
}

export function useSchemaAwareJit(opts: { onCompileError?: (error: unknown) => void } = {}): Plugin {
  const perSchema = new WeakMap<GraphQLSchema, JitPlugin>();
  const jitFor = (schema: GraphQLSchema): JitPlugin => {
    let jit = perSchema.get(schema);
    if (!jit) {
      const safety = new WeakMap<DocumentNode, boolean>();
      jit = useGraphQlJit(
        {},
        {
          enableIf: (args) => jitSafe(schema, args.document, safety),
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
