import { isReservedKey, unstorableText } from './text.ts';

/**
 * One pass over a parsed value (a request's query, body, path parameters, GraphQL variables, and JSON
 * that arrives as text inside them: a `where` value, an inline GraphQL literal) that finds what no
 * operation can store or process. The request guard (src/edge/input-guard.ts) runs it before any
 * operation; parsers of JSON text inside a value run it on what they parse:
 * - NUL characters: PostgreSQL text cannot hold U+0000 (SQLSTATE 22021) nor jsonb `\u0000` (22P05);
 * - unpaired UTF-16 surrogates: not Unicode, so not valid UTF-8 text or jsonb (22P05);
 * - nesting deeper than MAX_INPUT_DEPTH: recursive code further in (validation, serialisation,
 *   GraphQL variable coercion) would overflow the stack long before a legitimate value gets there.
 * - keys named `__proto__` (src/text.ts, `isReservedKey`): copied key by key into an ordinary object
 *   it changes the object's prototype.
 * - bytes that are not UTF-8 in a request body: the JSON body reader (src/http/request-body.ts)
 *   decodes each one to INVALID_UTF8_MARK instead of U+FFFD, so they are refused with the field they
 *   were in rather than stored as replacement characters the client never sent.
 * Keys are checked as well as values. The walk is iterative, so hostile depth cannot overflow it.
 */

/**
 * What the JSON body reader decodes each byte that is not part of valid UTF-8 to: a lone surrogate,
 * which no valid UTF-8 decodes to, so the mark cannot be confused with text the client sent as bytes.
 */
export const INVALID_UTF8_MARK = '\udfff';

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
 * string or body whose keys are the field names, 'variables' for GraphQL variables). `invalidUtf8`:
 * `value` was decoded from bytes that were not all UTF-8, so INVALID_UTF8_MARK is named as such.
 */
export function findInputProblem(value: unknown, root = '', opts: { invalidUtf8?: boolean } = {}): InputProblem | null {
  // Only a body that held invalid bytes can hold marks: an escaped \udfff elsewhere stays a surrogate.
  const textProblem = opts.invalidUtf8
    ? (s: string) => (s.includes(INVALID_UTF8_MARK) ? 'contains bytes that are not valid UTF-8' : unstorableText(s))
    : unstorableText;
  const stack: Node[] = [{ value, key: null, parent: null, depth: 0 }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const v = node.value;
    if (typeof v === 'string') {
      const problem = textProblem(v);
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
      const problem = textProblem(key);
      if (problem) {
        const path = pathOf(node, root);
        return { path, message: `A key in ${path === 'body' ? 'the body' : `the ${path} field`} ${problem}, which cannot be stored.` };
      }
      const child: Node = { value: (v as Record<string, unknown>)[key], key, parent: node, depth: node.depth + 1 };
      if (isReservedKey(key)) {
        const path = pathOf(child, root);
        return { path, message: `The key "${key}" (${path}) is not allowed: __proto__ is a reserved name.` };
      }
      stack.push(child);
    }
  }
  return null;
}
