import { createGraphQLError, type Plugin } from 'graphql-yoga';
import type { ExecutionResult, GraphQLError } from 'graphql';

/**
 * The one place that decides the HTTP status of a GraphQL answer, by the GraphQL-over-HTTP
 * specification (docs/graphql.md, "GraphQL over HTTP"):
 * - a response whose `data` is present and not null is 2xx under both media types, whatever field
 *   errors it carries (a missing entry among others, a FORBIDDEN field of a committed create): the
 *   errors keep their class in `extensions.code` and their headers (Retry-After), not their status;
 * - a response without data answers the status of its worst error (401, 403, 429, ...); request
 *   errors that carry no class (variable coercion, parse and validation failures) get `BAD_REQUEST`
 *   and 400 under `application/graphql-response+json`, 200 under `application/json`, as the spec's
 *   "should" asks (Yoga's `http.spec` flag does the media-type split);
 * - `extensions.http` is Yoga's internal channel for statuses and headers: it never reaches a body.
 */
export function useHttpStatuses(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (!result || Symbol.asyncIterator in result) return;
      if (Array.isArray(result)) {
        setResult(result.map((r) => withoutHttpInBody(decide(r))) as typeof result);
        return;
      }
      setResult(withoutHttpInBody(decide(result as ExecutionResult)) as typeof result);
    },
  };
}

type Http = { status?: number; headers?: Record<string, string>; spec?: boolean };

function decide(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length) return result;
  const hasData = result.data !== null && result.data !== undefined;
  const errors = result.errors.map((error) => {
    const http = error.extensions?.http as Http | undefined;
    if (hasData) {
      if (!http?.status) return error;
      const { status: _dropped, ...rest } = http;
      return rebuilt(error, { ...error.extensions, http: rest });
    }
    if (error.extensions?.code) return error;
    return rebuilt(error, { ...error.extensions, code: 'BAD_REQUEST', http: { ...http, status: http?.status ?? 400, spec: true } });
  });
  return { ...result, errors };
}

function rebuilt(error: GraphQLError, extensions: Record<string, unknown>): GraphQLError {
  return createGraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError ?? undefined,
    extensions,
  });
}

interface SerializedError {
  extensions?: Record<string, unknown>;
}

/**
 * Yoga strips `extensions.http` only from errors that pass its `instanceof GraphQLError` check, and
 * ours reached bodies with it (graphql can be loaded twice, see errors.ts). The result's `stringify`,
 * which Yoga calls to write the body, is wrapped to drop it from every error.
 */
function withoutHttpInBody(result: ExecutionResult & { stringify?: (r: unknown) => string }): ExecutionResult {
  if (!result.errors?.length) return result;
  const inner = result.stringify ?? JSON.stringify;
  const stringify = (r: ExecutionResult) =>
    inner({
      ...r,
      errors: r.errors?.map((e) => {
        const json = (typeof (e as { toJSON?: unknown }).toJSON === 'function' ? (e as GraphQLError).toJSON() : e) as SerializedError;
        if (!json.extensions || !('http' in json.extensions)) return json;
        const { http: _internal, ...extensions } = json.extensions;
        return { ...json, extensions };
      }),
    });
  return Object.assign({ ...result }, { stringify });
}

/**
 * The body's errors of a request refused before it ran, for transports that answer without Yoga's
 * result processor (`/graphql/stream`): as `decide` words them (a request error without a class is
 * `BAD_REQUEST`), without the internal `extensions.http`.
 */
export function clientErrors(errors: readonly GraphQLError[]): Array<Record<string, unknown>> {
  return errors.map((e) => {
    const json = (typeof (e as { toJSON?: unknown }).toJSON === 'function' ? e.toJSON() : e) as unknown as SerializedError & Record<string, unknown>;
    const { http: _internal, ...extensions } = json.extensions ?? {};
    return { ...json, extensions: { ...extensions, code: extensions.code ?? 'BAD_REQUEST' } };
  });
}

/**
 * The status and headers of such a refusal, as `/graphql` answers it under
 * `application/graphql-response+json`: the worst error's status; 400 for a request error without one
 * (syntax, validation, variables); 500 when something unexpected failed.
 */
export function refusalStatus(errors: readonly GraphQLError[]): { status: number; headers: Record<string, string> } {
  let status = 0;
  const headers: Record<string, string> = {};
  for (const error of errors) {
    const http = error.extensions?.http as Http | undefined;
    Object.assign(headers, http?.headers);
    const code = error.extensions?.code;
    const own = http?.status ?? (code === 'INTERNAL_SERVER_ERROR' || error.extensions?.unexpected ? 500 : 400);
    status = Math.max(status, own);
  }
  return { status: status || 400, headers };
}
