import { AppError, validationFailed } from '../errors.ts';
import { isReservedKey } from '../text.ts';
import { findInputProblem, type InputProblem } from '../input-problems.ts';

/**
 * The request guard: every parsed request value is walked once (src/input-problems.ts) before any
 * operation runs, and the raw query string is read for what its parser forgives.
 */
export { findInputProblem, MAX_INPUT_DEPTH, type InputProblem } from '../input-problems.ts';

/** The parts of a request the guard reads; whichever surface parsed them. */
export interface RequestParts {
  params?: unknown;
  query?: unknown;
  body?: unknown;
  /** The GraphQL endpoint: its `query` field is a document, and GET carries `variables` as JSON text. */
  graphql?: boolean;
  /** The request target as sent (path and query string), for what the query parser forgives or drops. */
  url?: string;
  /** The body's bytes were not all UTF-8: its reader marked each bad one (src/input-problems.ts, INVALID_UTF8_MARK). */
  invalidUtf8?: boolean;
}

/**
 * The error that refuses a request whose parsed input cannot be processed, or null. Path
 * parameters and GraphQL documents are the URL and the request itself being malformed (400);
 * anything else is a field value the client can correct (422 naming the field).
 */
export function requestInputError(parts: RequestParts): AppError | null {
  const inParams = findInputProblem(parts.params, '');
  if (inParams) return new AppError('BAD_REQUEST', `The URL is malformed: ${lowerFirst(inParams.message)}`, { errors: { [inParams.path]: [inParams.message] } });
  const inQueryString = parts.url === undefined ? null : queryStringError(parts.url);
  if (inQueryString) return inQueryString;
  const found = findInputProblem(parts.query, '') ?? findInputProblem(parts.body, '', { invalidUtf8: parts.invalidUtf8 }) ?? (parts.graphql ? graphqlGetProblem(parts.query) : null);
  if (!found) return null;
  if (parts.graphql && (found.path === 'query' || found.path.startsWith('query.'))) {
    return new AppError('BAD_REQUEST', `The GraphQL document is malformed: ${lowerFirst(found.message)}`, { errors: { [found.path]: [found.message] } });
  }
  return validationFailed({ [found.path]: [found.message] });
}

/**
 * What the query-string parser would hide: a parameter whose percent-encoding does not decode (a `%`
 * not followed by two hex digits, bytes that are not UTF-8) is kept as raw text by the parser, and
 * a `__proto__` segment (`where[__proto__][eq]=1`) is dropped. The first is the URL being malformed
 * (400, as in the path), the second a reserved key (422, as in a body). Both name the parameter.
 */
export function queryStringError(url: string): AppError | null {
  const at = url.indexOf('?');
  if (at < 0) return null;
  const query = url.slice(at + 1);
  if (!MAY_NEED_A_LOOK.test(query)) return null;
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawKey = eq < 0 ? pair : pair.slice(0, eq);
    const key = decodeComponent(rawKey);
    const name = key === null ? rawKey.slice(0, 100) : keyPath(key);
    if (key === null || (eq >= 0 && decodeComponent(pair.slice(eq + 1)) === null)) {
      const message = `The ${name} query parameter is malformed: every % must start a valid percent-encoded UTF-8 sequence (%XX).`;
      return new AppError('BAD_REQUEST', `The URL is malformed: ${lowerFirst(message)}`, { errors: { [name]: [message] } });
    }
    const reserved = key.split(/[[\]]+/).find(isReservedKey);
    if (reserved !== undefined) {
      return validationFailed({ [name]: [`The key "${reserved}" (${name}) is not allowed: __proto__ is a reserved name.`] });
    }
  }
  return null;
}

/** Only a query string with a `%` or a reserved key can hold either problem; most have neither. */
const MAY_NEED_A_LOOK = /%|__proto__/;

function decodeComponent(s: string): string | null {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/** `where[title][eq]` as the guard names fields elsewhere: `where.title.eq`. */
const keyPath = (key: string): string => key.split(/[[\]]+/).filter(Boolean).join('.') || key;

/** GraphQL over GET: `variables` and `extensions` are JSON text inside the query string. */
function graphqlGetProblem(query: unknown): InputProblem | null {
  if (typeof query !== 'object' || query === null) return null;
  for (const key of ['variables', 'extensions'] as const) {
    const text = (query as Record<string, unknown>)[key];
    if (typeof text !== 'string') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      continue; // not JSON: Yoga answers that itself
    }
    const problem = findInputProblem(parsed, key);
    if (problem) return problem;
  }
  return null;
}

const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);
