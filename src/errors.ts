import type { ZodError, ZodType, output } from 'zod';

/**
 * Typed errors thrown by the operations layer. REST (src/http/error-handler.ts) and GraphQL
 * (src/graphql/plugins/result/mask-error.ts) map them to a status / extensions.code in one place each; operations never
 * know which surface called them.
 */
export type FieldErrors = Record<string, string[]>;

export type ErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'VALIDATION_FAILED'
  | 'RATE_LIMITED'
  | 'SERVICE_UNAVAILABLE';

export const statusOf: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_FAILED: 422,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
};

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly errors?: FieldErrors;
  /** Seconds, for 429 and 503 (sent as Retry-After). */
  readonly retryAfter?: number;
  /**
   * Extra top-level keys of the REST body, for answers whose clients read more than the message
   * (end-user auth: `code: "email_verification_required"`, `retry_after`).
   */
  readonly extra?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, opts: { errors?: FieldErrors; retryAfter?: number; extra?: Record<string, unknown> } = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.errors = opts.errors;
    this.retryAfter = opts.retryAfter;
    this.extra = opts.extra;
  }

  get status(): number {
    return statusOf[this.code];
  }

  /** The one JSON error shape of every surface: `{ message, errors? }` (Laravel's). */
  toBody(): { message: string; errors?: FieldErrors } {
    const body = this.errors ? { message: this.message, errors: this.errors } : { message: this.message };
    return this.extra ? { ...body, ...this.extra } : body;
  }
}

/**
 * The entry a read asked for does not exist or is not visible in the state read. Its own class so a
 * surface that answers "no entry" differently (an empty page) tells it apart by type, not by message.
 */
export class EntryNotFound extends AppError {
  constructor() {
    super('NOT_FOUND', 'Entry not found.');
  }
}

export const badRequest = (message: string) => new AppError('BAD_REQUEST', message);
export const unauthenticated = (message = 'Unauthenticated.') => new AppError('UNAUTHENTICATED', message);
export const forbidden = (message = 'Forbidden.') => new AppError('FORBIDDEN', message);
export const notFound = (message: string) => new AppError('NOT_FOUND', message);
export const conflict = (message: string) => new AppError('CONFLICT', message);
export const rateLimited = (retryAfter: number) =>
  new AppError('RATE_LIMITED', 'Too Many Attempts.', { retryAfter });

/** 422 with a field map; the message is the first problem, as Laravel reports it. */
export function validationFailed(errors: FieldErrors, message?: string): AppError {
  const keys = Object.keys(errors);
  const first = keys.length ? errors[keys[0]][0] : 'The given data was invalid.';
  const more = keys.reduce((n, k) => n + errors[k].length, 0) - 1;
  const text = message ?? (more > 0 ? `${first} (and ${more} more error${more === 1 ? '' : 's'})` : first);
  return new AppError('VALIDATION_FAILED', text, { errors });
}

/** Zod issues as Laravel-style field keys (`items.0.locale`): how input validation becomes a 422. */
export function zodToAppError(err: ZodError, prefix = ''): AppError {
  const errors: Record<string, string[]> = {};
  for (const issue of err.issues) {
    const key = [prefix, ...issue.path.map(String)].filter(Boolean).join('.') || 'body';
    (errors[key] ??= []).push(issue.message);
  }
  return validationFailed(errors);
}

/** Collects field errors across a whole input before failing, so clients see every problem at once. */
export class ErrorBag {
  readonly errors: FieldErrors = {};
  add(key: string, message: string): void {
    (this.errors[key] ??= []).push(message);
  }
  merge(other: FieldErrors, prefix = ''): void {
    for (const [k, msgs] of Object.entries(other)) for (const m of msgs) this.add(prefix + k, m);
  }
  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }
  throwIfAny(message?: string): void {
    if (!this.empty) throw validationFailed(this.errors, message);
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

/** Parses a request body with its schema, or throws the 422 naming every problem. */
export function parseBody<S extends ZodType>(schema: S, body: unknown): output<S> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw zodToAppError(parsed.error);
  return parsed.data;
}
