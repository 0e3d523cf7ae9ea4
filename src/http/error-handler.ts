import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { operationError } from '../edge/errors.ts';

/** Maps anything thrown to the one error body `{ message, errors? }`; unknown errors never leak. */
export function toAppError(err: unknown): AppError | null {
  const op = operationError(err);
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
  }
  if (err instanceof SyntaxError) return new AppError('BAD_REQUEST', 'The request body is not valid JSON.');
  if (fe?.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new AppError(fe.statusCode === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST', fe.message ?? 'Bad request.');
  }
  return null;
}

export function errorHandler(err: unknown, req: FastifyRequest, reply: FastifyReply): void {
  const app = toAppError(err);
  if (!app) {
    req.log.error({ err }, 'unhandled error');
    void reply.status(500).send({ message: 'Server Error' });
    return;
  }
  // Operators need to see these even though the client gets a clean answer.
  if (app.code === 'SERVICE_UNAVAILABLE') req.log.warn({ err }, 'database unavailable');
  if (app.retryAfter !== undefined) void reply.header('Retry-After', String(app.retryAfter));
  void reply.status(app.status).send(app.toBody());
}
