/**
 * What the early GraphQL lane (src/graphql/server/cached-answers.ts) reads of a request before Yoga
 * would: the media type of the answer and the GraphQL-over-HTTP parameters. Written here rather than
 * imported: graphql-yoga exports neither its Accept negotiation (`getMediaTypesForRequestInOrder`,
 * `isMatchingMediaType`) nor its request parsers (its package `exports` map allows only the root, which
 * has neither), and both take a fetch `Request`, which the lane runs before one exists (building one is
 * most of the cost the lane saves). test/graphql/cached-answers.test.ts pins the media-type walk to
 * Yoga's; parameters the lane does not read as Yoga would only ever fall through to Yoga.
 */

/** The parts of an HTTP request the lane reads: Fastify's request is one. */
export interface GraphqlHttpRequest {
  method: string;
  query?: unknown;
  body?: unknown;
}

/**
 * The media type Yoga's regular result processor would answer with, or null when it would not be
 * the one answering (event streams, multipart, a charset other than UTF-8, nothing acceptable). The
 * same walk as graphql-yoga's use-result-processor: the last match wins, the header's first entry
 * is tried last, and `*` matches either part.
 */
export function regularMediaType(accept: string | undefined): string | null {
  const asked = (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',');
  const types: string[] = [];
  for (const entry of asked) {
    const [type, ...params] = entry.split(';');
    if (!type) continue;
    const charset = params.find((p) => p.includes('charset=')) ?? 'charset=utf-8';
    if (charset === 'charset=utf-8') types.push(type);
  }
  let chosen: string | null = null;
  for (const type of types.reverse()) {
    const [pre, suf] = type.split('/');
    for (const offered of ['application/graphql-response+json', 'application/json']) {
      const [oPre, oSuf] = offered.split('/');
      if ((pre === '*' || pre === oPre) && (suf === '*' || suf === oSuf)) chosen = offered;
    }
  }
  return chosen;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON query-string parameter, or `undefined` when absent and `null` when it does not parse (Yoga answers those). */
function jsonParam(value: unknown): unknown {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return null;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return null;
  }
}

export interface RawParams {
  query?: unknown;
  operationName?: string | null;
  variables?: unknown;
  extensions?: unknown;
}

/** The GraphQL-over-HTTP parameters of a single (unbatched) GET or JSON POST, as sent, or null. */
export function paramsOf(req: GraphqlHttpRequest): RawParams | null {
  let raw: Record<string, unknown>;
  if (req.method === 'GET') {
    const q = (req.query ?? {}) as Record<string, unknown>;
    const variables = jsonParam(q.variables);
    const extensions = jsonParam(q.extensions);
    if (variables === null || extensions === null) return null;
    raw = { query: q.query, operationName: q.operationName, variables, extensions };
  } else if (req.method === 'POST' && isRecord(req.body)) {
    raw = req.body;
  } else {
    return null;
  }
  if (raw.operationName !== undefined && raw.operationName !== null && typeof raw.operationName !== 'string') return null;
  return { query: raw.query, operationName: raw.operationName as string | null | undefined, variables: raw.variables, extensions: raw.extensions };
}
