import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { classify } from '../../../edge/pipeline/index.ts';

/**
 * The GraphQL side of the one error mapping: AppErrors keep their message and field map, and carry
 * the same class as REST in `extensions.code` plus the HTTP status; anything else is masked.
 */
export function maskError(error: unknown, message: string): GraphQLError {
  // Duck-typed: graphql can be loaded twice (ESM and CJS builds), so instanceof GraphQLError lies.
  const original = unwrap(error);
  const app = classify(original);
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
  // A variable the schema cannot coerce (a string for an Int inside an input object, a bad DateTime)
  // is the client's mistake: graphql-js wraps the scalar's own error, which is not ours to mask.
  if (isVariableCoercion(error)) {
    // Without a cause or class: src/graphql/plugins/result/use-http-statuses.ts gives it BAD_REQUEST and the spec's status.
    return new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions });
  }
  return new GraphQLError(message, {
    path: isGraphQLErrorLike(error) ? error.path : undefined,
    extensions: { code: 'INTERNAL_SERVER_ERROR' },
  });
}

/** graphql-js's coerceVariableValues message: `Variable "$name" got invalid value …`. */
const VARIABLE_COERCION = /^Variable "\$[_A-Za-z][_0-9A-Za-z]*" got invalid value /;

/** A variable the schema could not coerce: the client's input, never a fault of ours. */
function isVariableCoercion(error: unknown): error is GraphQLError {
  return isGraphQLErrorLike(error) && !error.path && VARIABLE_COERCION.test(error.message);
}

function isGraphQLErrorLike(e: unknown): e is GraphQLError {
  return e instanceof Error && (e.name === 'GraphQLError' || e instanceof GraphQLError);
}

function unwrap(e: unknown): unknown {
  let cur = e;
  for (let i = 0; i < 5 && isGraphQLErrorLike(cur) && cur.originalError; i++) cur = cur.originalError;
  return cur;
}

/** What Yoga logs through (its `logging` option): one function per level, any arguments. */
export type GraphQLLogger = Record<'debug' | 'info' | 'warn' | 'error', (...args: unknown[]) => void>;

/**
 * Yoga logs at `error` every error its mask changed, which is every AppError and every variable the
 * schema could not coerce: a 403, 422 or bad variable is the client's mistake and the answer says so,
 * so those go to `debug` with their class and message and no stack. Anything unexpected, and 5xx AppErrors, stay at `error` with the full error.
 */
export function graphqlLogger(log: Logger): GraphQLLogger {
  const write = (level: 'debug' | 'info' | 'warn', args: unknown[]) => {
    const [first, ...rest] = args;
    if (typeof first === 'string') log[level](rest.length ? { args: rest } : {}, first);
    else log[level]({ detail: first, ...(rest.length ? { args: rest } : {}) }, 'graphql');
  };
  return {
    debug: (...args) => write('debug', args),
    info: (...args) => write('info', args),
    warn: (...args) => write('warn', args),
    error: (...args) => {
      const app = args.length === 1 ? classify(unwrap(args[0])) : null;
      if (app && app.status < 500) {
        log.debug({ code: app.code, status: app.status, message: app.message }, 'graphql client error');
        return;
      }
      // Yoga logs the variable errors our mask rewrote (a wrong scalar inside an input object).
      if (args.length === 1 && isVariableCoercion(args[0])) {
        log.debug({ code: 'BAD_REQUEST', status: 400, message: args[0].message }, 'graphql client error');
        return;
      }
      const [first, ...rest] = args;
      if (first instanceof Error) log.error({ err: first, ...(rest.length ? { args: rest } : {}) }, first.message);
      else log.error({ detail: first, ...(rest.length ? { args: rest } : {}) }, 'graphql error');
    },
  };
}
