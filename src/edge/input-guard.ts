import { AppError, validationFailed } from '../errors.ts';
import { isReservedKey, unstorableText } from '../text.ts';

/**
 * One pass over a parsed request value (query, body, path parameters, GraphQL variables) that finds
 * what no operation can store or process, before any of them runs:
 * - NUL characters: PostgreSQL text cannot hold U+0000 (SQLSTATE 22021) nor jsonb `\u0000` (22P05);
 * - unpaired UTF-16 surrogates: not Unicode, so not valid UTF-8 text or jsonb (22P05);
 * - nesting deeper than MAX_INPUT_DEPTH: recursive code further in (validation, serialisation,
 *   GraphQL variable coercion) would overflow the stack long before a legitimate value gets there.
 * - keys named `__proto__`, `constructor` or `prototype` (src/text.ts, `isReservedKey`): copied key by
 *   key into an ordinary object they change its prototype or read as what every object inherits.
 * Keys are checked as well as values. The walk is iterative, so hostile depth cannot overflow it.
 */

/** Deepest nesting of objects/arrays accepted in any request value; documented in docs/foundation.md. */
export const MAX_INPUT_DEPTH = 64;

/** Segments of a reported path; a deep path is cut here so the error key stays readable. */
const MAX_REPORTED_SEGMENTS = 6;

export interface InputProblem {
  /** Dotted path of the offending field (`data.meta.title`, `where.title.eq`, `items.0.data`). */
  path: string;
  message: string;
}

interface Node {
  value: unknown;
  key: string | null;
  parent: Node | null;
  depth: number;
}

function pathOf(node: Node | null, root: string): string {
  const segments: string[] = [];
  for (let n = node; n; n = n.parent) if (n.key !== null) segments.push(n.key);
  if (root) segments.push(root);
  segments.reverse();
  const shown = segments.length > MAX_REPORTED_SEGMENTS ? [...segments.slice(0, MAX_REPORTED_SEGMENTS), '…'] : segments;
  return shown.join('.') || 'body';
}

const describe = (path: string): string => `The ${path} field`;

/**
 * The first problem found in `value`, or null. `root` names the value as a whole ('' for a query
 * string or body whose keys are the field names, 'variables' for GraphQL variables).
 */
export function findInputProblem(value: unknown, root = ''): InputProblem | null {
  const stack: Node[] = [{ value, key: null, parent: null, depth: 0 }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const v = node.value;
    if (typeof v === 'string') {
      const problem = unstorableText(v);
      if (problem) {
        const path = pathOf(node, root);
        return { path, message: `${describe(path)} ${problem}, which cannot be stored.` };
      }
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (node.depth >= MAX_INPUT_DEPTH) {
      const path = pathOf(node, root);
      return { path, message: `${describe(path)} is nested more than ${MAX_INPUT_DEPTH} levels deep.` };
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: String(i), parent: node, depth: node.depth + 1 });
      continue;
    }
    // Own enumerable keys only: parsers build plain or null-prototype objects.
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i];
      const problem = unstorableText(key);
      if (problem) {
        const path = pathOf(node, root);
        return { path, message: `A key in ${path === 'body' ? 'the body' : `the ${path} field`} ${problem}, which cannot be stored.` };
      }
      const child: Node = { value: (v as Record<string, unknown>)[key], key, parent: node, depth: node.depth + 1 };
      if (isReservedKey(key)) {
        const path = pathOf(child, root);
        return { path, message: `The key "${key}" (${path}) is not allowed: __proto__, constructor and prototype are reserved names.` };
      }
      stack.push(child);
    }
  }
  return null;
}

/** The parts of a request the guard reads; whichever surface parsed them. */
export interface RequestParts {
  params?: unknown;
  query?: unknown;
  body?: unknown;
  /** The GraphQL endpoint: its `query` field is a document, and GET carries `variables` as JSON text. */
  graphql?: boolean;
  /** The request target as sent (path and query string), for what the query parser forgives or drops. */
  url?: string;
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
  const found = findInputProblem(parts.query, '') ?? findInputProblem(parts.body, '') ?? (parts.graphql ? graphqlGetProblem(parts.query) : null);
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
      return validationFailed({ [name]: [`The key "${reserved}" (${name}) is not allowed: __proto__, constructor and prototype are reserved names.`] });
    }
  }
  return null;
}

/** Only a query string with a `%` or a reserved name can hold either problem; most have neither. */
const MAY_NEED_A_LOOK = /%|__proto__|constructor|prototype/;

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
