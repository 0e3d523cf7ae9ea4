import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { getOperationAST, type GraphQLError } from 'graphql';

/**
 * A mutation that wrote something answers HTTP 200, whatever else failed beside it. Yoga takes the
 * response status from the errors' `extensions.http.status`, so a FORBIDDEN on one selected field
 * of a committed create (say `versions` for a create-only token), or a 422 of the second of two
 * mutations, would answer 403/422 and invite a client to retry a write that happened. When any root
 * field of a mutation's data is non-null the errors keep their `code` (and headers such as
 * Retry-After) but lose the status; mutations that wrote nothing keep theirs, as REST does.
 */
export function useCommittedWritesAnswer200(): Plugin {
  const mutations = new WeakSet<Request>();
  return {
    onExecute({ args }) {
      const request = (args.contextValue as { request?: Request } | undefined)?.request;
      if (request && getOperationAST(args.document, args.operationName)?.operation === 'mutation') mutations.add(request);
    },
    onResultProcess({ request, result, setResult }) {
      if (!mutations.has(request) || Array.isArray(result) || !result || Symbol.asyncIterator in result) return;
      const single = result as { data?: Record<string, unknown> | null; errors?: readonly GraphQLError[] };
      const wrote = single.data && Object.values(single.data).some((v) => v !== null && v !== undefined);
      if (!wrote || !single.errors?.length) return;
      setResult({ ...single, errors: single.errors.map(withoutStatus) } as typeof result);
    },
  };
}

function withoutStatus(error: GraphQLError): GraphQLError {
  const http = error.extensions?.http as { status?: number; headers?: Record<string, string> } | undefined;
  if (!http?.status) return error;
  const { status: _dropped, ...rest } = http;
  return createGraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError ?? undefined,
    extensions: { ...error.extensions, http: rest },
  });
}
