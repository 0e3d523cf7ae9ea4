import { AppError, validationFailed } from '../errors.ts';
import { BULK_UPLOAD_MAX } from '../assets/operations.ts';

const TOO_LONG = 'The multipart/form-data boundary parameter is longer than the 70 characters RFC 2046 allows.';

/**
 * What the multipart parser (@fastify/multipart over @fastify/busboy) throws for a body it cannot
 * read, as the client's error it is: busboy's errors carry no code, only a message, so they are
 * recognised by it here, in one place, and answered 400 naming the problem instead of a 500.
 */
const MALFORMED: Array<[RegExp, string]> = [
  [/^Multipart: Boundary not found/, 'The multipart/form-data Content-Type has no boundary parameter: send `multipart/form-data; boundary=…`.'],
  [/^The needle cannot be an empty/, 'The multipart/form-data boundary parameter is empty.'],
  [/^The needle cannot have a length bigger than/, TOO_LONG],
  [/^Boundary required/, 'The multipart/form-data Content-Type has no boundary parameter: send `multipart/form-data; boundary=…`.'],
  [
    /^(Unexpected end of multipart data|(Part|Preamble) terminated early)/,
    'The multipart/form-data body ended before its closing boundary: it is truncated, or its parts are not delimited by the boundary its Content-Type names.',
  ],
];

/** Codes of @fastify/multipart's own errors that mean the body is not a readable form. */
const BAD_BODY_CODES: Record<string, string> = {
  FST_MP_PREMATURE_CLOSE: 'The request was closed before the multipart/form-data body was complete.',
  FST_PROTO_VIOLATION: 'A multipart/form-data field is named __proto__, a reserved name.',
  FST_INVALID_JSON_FIELD_ERROR: 'A multipart/form-data field declared as application/json is not valid JSON.',
};

/**
 * An upload route's failure as the answer it should get: the parser's limits and malformed bodies
 * become 4xx; anything else (an operation's AppError, a database failure) is returned unchanged.
 * `field` is the route's file field, named in limit errors.
 */
export function multipartError(err: unknown, limit: number, field: 'file' | 'files' = 'file'): unknown {
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new AppError('PAYLOAD_TOO_LARGE', `The file may not be greater than ${Math.floor(limit / 1024)} kilobytes.`);
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' || code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return validationFailed({
      [field]: [field === 'file' ? 'Send one file in the multipart/form-data field `file`.' : `Send at most ${BULK_UPLOAD_MAX} files in the multipart/form-data field \`files[]\`.`],
    });
  }
  if (typeof code === 'string' && Object.hasOwn(BAD_BODY_CODES, code)) return new AppError('BAD_REQUEST', BAD_BODY_CODES[code]);
  if (err instanceof AppError || typeof message !== 'string') return err;
  const known = MALFORMED.find(([pattern]) => pattern.test(message));
  return known ? new AppError('BAD_REQUEST', known[1]) : err;
}

/**
 * Refuses a boundary parameter that is empty or longer than RFC 2046's 70 characters before the body
 * is read: busboy takes an empty one and finds no parts (answered as if the file were missing), and
 * a long one fails deep in its search with a message about needles.
 */
export function checkBoundary(contentType: string | undefined): void {
  const match = /;\s*boundary\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? '');
  if (!match) return; // no boundary at all: the parser says so (MALFORMED)
  const boundary = match[1] ?? match[2];
  if (boundary === '') throw new AppError('BAD_REQUEST', 'The multipart/form-data boundary parameter is empty.');
  if (boundary.length > 70) throw new AppError('BAD_REQUEST', TOO_LONG);
}
