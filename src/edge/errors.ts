import { ZodError } from 'zod';
import { AppError, notFound, zodToAppError } from '../errors.ts';
import { dataExceptionState, isRecordGoneError, isTransientDatabaseError } from '../db/errors.ts';

/**
 * A PostgreSQL data exception (SQLSTATE class 22) that got past input validation: answered 422 like
 * any invalid value, but a bug all the same, so surfaces log it at error level (`sqlState` says which).
 */
export class DataExceptionError extends AppError {
  readonly sqlState: string;
  constructor(sqlState: string) {
    super('VALIDATION_FAILED', 'A value in the request cannot be stored or compared (it is out of range or not valid text).');
    this.sqlState = sqlState;
  }
}

/**
 * What an operation can throw that has a status on every surface: REST (src/http/error-handler.ts)
 * and GraphQL (src/graphql/plugins/result/mask-error.ts) both start from this and only shape the answer. Null means
 * "not an expected failure": the surface masks it as a server error and logs it.
 */
export function operationError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  if (err instanceof ZodError) return zodToAppError(err);
  if (isTransientDatabaseError(err)) {
    return new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable or busy; retry the request shortly.', { retryAfter: 1 });
  }
  if (isRecordGoneError(err)) return notFound('Not found: it was deleted by another request.');
  const sqlState = dataExceptionState(err);
  if (sqlState) return new DataExceptionError(sqlState);
  return null;
}
