import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { DataExceptionError } from '../edge/errors.ts';
import { classify } from '../edge/pipeline/index.ts';

/** Maps anything thrown to the one error body `{ message, errors? }`; unknown errors never leak. */
export function toAppError(err: unknown): AppError | null {
  const op = classify(err);
  if (op) return op;
  const fe = err as Partial<FastifyError> | undefined;
  switch (fe?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported Content-Type: send application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('BAD_REQUEST', 'The JSON body is empty.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('BAD_REQUEST', 'The request body is not valid JSON.');
    case 'FST_ERR_BAD_URL':
      return new AppError('BAD_REQUEST', 'The URL is malformed: every % must start a valid percent-encoded UTF-8 sequence (%XX).');
  }
  if (err instanceof SyntaxError) return new AppError('BAD_REQUEST', 'The request body is not valid JSON.');
  if (fe?.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new AppError(fe.statusCode === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST', fe.message ?? 'Bad request.');
  }
  return null;
}

/**
 * Log levels by whose fault a failure is: a client error (4xx) is routine and goes to info without
 * a stack; a server fault (5xx) goes to error with its stack; a database that is away goes to warn;
 * a database data exception that validation should have caught is a bug and goes to error too,
 * though the client gets a 422.
 */
function logFailure(req: FastifyRequest, err: unknown, app: AppError | null): void {
  // Requests get no child logger of their own (src/http/server.ts): the id is bound here, on failures only.
  const log = req.log.child({ reqId: req.id });
  if (!app) log.error({ err }, 'unhandled error');
  else if (app instanceof DataExceptionError) log.error({ err, sqlState: app.sqlState }, 'bug: a database data exception reached the edge (input validation let the value through); answered 422');
  else if (app.code === 'SERVICE_UNAVAILABLE') log.warn({ err }, app.message);
  else if (app.status >= 500) log.error({ err }, app.message);
  else log.info({ status: app.status, code: app.code, message: app.message }, 'client error');
}

export function errorHandler(err: unknown, req: FastifyRequest, reply: FastifyReply): void {
  const app = toAppError(err);
  logFailure(req, err, app);
  if (!app) {
    void reply.status(500).send({ message: 'Server Error' });
    return;
  }
  if (app.retryAfter !== undefined) void reply.header('Retry-After', String(app.retryAfter));
  void reply.status(app.status);
  // The GraphQL endpoints (/graphql and /graphql/stream, whose protocol answers a refused request with
  // a GraphQL `errors` body too) answer in GraphQL's own shape even when the request is refused before
  // Yoga sees it (body parsing, the input guard), with the same extensions as src/graphql/plugins/result/mask-error.ts.
  if (req.routeOptions?.url === '/graphql' || req.routeOptions?.url === '/graphql/stream') {
    void reply.send({
      errors: [{ message: app.message, extensions: { code: app.code, status: app.status, ...(app.errors ? { errors: app.errors } : {}) } }],
    });
    return;
  }
  void reply.send(app.toBody());
}

/**
 * Errors Fastify raises while routing, before any hook runs (a path with malformed percent-encoding,
 * an over-long path parameter): the same `{ message }` shape as every other error.
 */
export function frameworkErrorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  errorHandler(err, req, reply);
}
