import { GraphQLError } from 'graphql';
import { operationError } from '../edge/errors.ts';

/**
 * The GraphQL side of the one error mapping: AppErrors keep their message and field map, and carry
 * the same class as REST in `extensions.code` plus the HTTP status; anything else is masked.
 */
export function maskError(error: unknown, message: string): GraphQLError {
  // Duck-typed: graphql can be loaded twice (ESM and CJS builds), so instanceof GraphQLError lies.
  const original = unwrap(error);
  const app = operationError(original);
  if (app) {
    const gqlError = isGraphQLErrorLike(error) ? error : undefined;
    return new GraphQLError(app.message, {
      nodes: gqlError?.nodes,
      source: gqlError?.source,
      positions: gqlError?.positions,
      path: gqlError?.path,
      extensions: {
        code: app.code,
        status: app.status,
        ...(app.errors ? { errors: app.errors } : {}),
        ...(app.retryAfter !== undefined ? { retryAfter: app.retryAfter } : {}),
        http: { status: app.status, ...(app.retryAfter !== undefined ? { headers: { 'Retry-After': String(app.retryAfter) } } : {}) },
      },
    });
  }
  if (isGraphQLErrorLike(error) && !error.originalError) return error as GraphQLError; // syntax/validation errors
  return new GraphQLError(message, {
    path: isGraphQLErrorLike(error) ? error.path : undefined,
    extensions: { code: 'INTERNAL_SERVER_ERROR' },
  });
}

function isGraphQLErrorLike(e: unknown): e is GraphQLError {
  return e instanceof Error && (e.name === 'GraphQLError' || e instanceof GraphQLError);
}

function unwrap(e: unknown): unknown {
  let cur = e;
  for (let i = 0; i < 5 && isGraphQLErrorLike(cur) && cur.originalError; i++) cur = cur.originalError;
  return cur;
}
