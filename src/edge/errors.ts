import { ZodError } from 'zod';
import { AppError, zodToAppError } from '../errors.ts';
import { isTransientDatabaseError } from '../db/errors.ts';

/**
 * What an operation can throw that has a status on every surface: REST (src/http/error-handler.ts)
 * and GraphQL (src/graphql/errors.ts) both start from this and only shape the answer. Null means
 * "not an expected failure": the surface masks it as a server error and logs it.
 */
export function operationError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  if (err instanceof ZodError) return zodToAppError(err);
  if (isTransientDatabaseError(err)) {
    return new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable or busy; retry the request shortly.', { retryAfter: 1 });
  }
  return null;
}
