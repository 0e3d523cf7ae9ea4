import { isUtf8 } from 'node:buffer';
import { Transform, type TransformCallback } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { INVALID_UTF8_MARK } from '../input-problems.ts';

/**
 * How request bodies are read (docs/foundation.md, "Request bodies"):
 * - JSON routes take `application/json` in UTF-8 (RFC 8259 allows no other charset on the wire); any
 *   other media type (`text/plain`, `application/xml`, form posts) or charset is refused with 415 before
 *   the body is read, instead of reaching validation as a string. Upload routes take
 *   `multipart/form-data` only (src/rest/asset-routes.ts).
 * - A JSON body whose bytes are not all UTF-8 is not decoded to U+FFFD replacement characters (which
 *   would be stored as if the client had sent them): each bad byte becomes INVALID_UTF8_MARK, and the
 *   request guard refuses the field holding it as it refuses a lone surrogate (422 naming the field).
 * - `Content-Encoding: gzip`, `deflate` and `br` bodies of JSON routes are decoded; the decoded size
 *   counts against BODY_LIMIT_BYTES, and decoding stops as soon as it passes it (413), so a small
 *   compressed body cannot expand into gigabytes. Any other coding, or a coding on an upload, is 415.
 */

const DECODERS = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
} as const;

type Coding = keyof typeof DECODERS;

/** The media type of a Content-Type header, lower-cased, without parameters. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0].trim().toLowerCase();
}

/** The `charset` parameter of a Content-Type header, lower-cased, or undefined. */
function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '');
  return match ? match[1].toLowerCase() : undefined;
}

function hasBody(req: FastifyRequest): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

const unsupported = (message: string): AppError => new AppError('UNSUPPORTED_MEDIA_TYPE', message);

/** Counts decoded bytes and fails the stream with 413 once they pass the body limit. */
class DecodedLimit extends Transform {
  /** Read by Fastify's body reader to check Content-Length against the bytes that came over the wire. */
  receivedEncodedLength = 0;
  private decoded = 0;
  constructor(private readonly limit: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.decoded += chunk.length;
    if (this.decoded > this.limit) done(new AppError('PAYLOAD_TOO_LARGE', `The request body is too large once decoded (more than ${this.limit} bytes).`));
    else done(null, chunk);
  }
}

export function registerRequestBodies(app: FastifyInstance, bodyLimit: number): void {
  // Fastify parses text/plain by default: a JSON route would get a string and answer 422.
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  // An empty body is "no body" (clients send Content-Type on bodiless POSTs such as publish).
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const charset = charsetOf(req.headers['content-type']);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      done(unsupported(`Unsupported charset "${charset}": JSON bodies must be UTF-8 (send charset=utf-8 or none).`), undefined);
      return;
    }
    const bytes = body as Buffer;
    let text: string;
    if (isUtf8(bytes)) text = bytes.toString('utf8').trim();
    else {
      text = decodeMarkingInvalid(bytes).trim();
      withInvalidUtf8.add(req);
    }
    if (text === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new SyntaxError('The request body is not valid JSON.'), undefined);
    }
  });

  app.addHook('preParsing', (req, _reply, payload, done) => {
    const header = req.headers['content-encoding'];
    if (header === undefined || !hasBody(req)) return done(null, payload);
    const coding = header.trim().toLowerCase();
    if (coding === '' || coding === 'identity') return done(null, payload);
    const decoder = (DECODERS as Record<string, (typeof DECODERS)[Coding] | undefined>)[coding];
    if (!decoder) return done(unsupported(`Unsupported Content-Encoding "${header}": send gzip, deflate, br or none.`));
    if (mediaTypeOf(req.headers['content-type']) !== 'application/json') {
      return done(unsupported(`Content-Encoding "${header}" is accepted on JSON bodies only.`));
    }
    const limited = new DecodedLimit(bodyLimit);
    const decoding = decoder();
    // Bytes that are not what the coding says: a 400 naming the coding, not zlib's message.
    decoding.on('error', () => limited.destroy(new AppError('BAD_REQUEST', `The request body is not valid ${coding} data.`)));
    payload.on('error', (err) => limited.destroy(err));
    // Past the limit (or refused): stop decoding at once and let the rest of the upload drain unread.
    limited.on('error', () => {
      payload.unpipe(decoding);
      decoding.destroy();
      payload.resume();
    });
    payload.on('data', (chunk: Buffer) => (limited.receivedEncodedLength += chunk.length));
    payload.pipe(decoding).pipe(limited);
    done(null, limited);
  });
}

const withInvalidUtf8 = new WeakSet<FastifyRequest>();

/** The request's JSON body held bytes that are not UTF-8 (each decoded to INVALID_UTF8_MARK). */
export function hadInvalidUtf8(req: FastifyRequest): boolean {
  return withInvalidUtf8.has(req);
}

/** Length of the well-formed UTF-8 sequence at `i` (RFC 3629: no overlongs, surrogates or code points past U+10FFFF), or 0. */
function sequenceAt(b: Buffer, i: number): number {
  const c = b[i];
  if (c < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k] >= lo && b[i + k] <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const lo = c === 0xe0 ? 0xa0 : 0x80;
    const hi = c === 0xed ? 0x9f : 0xbf;
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const lo = c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xf4 ? 0x8f : 0xbf;
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/** `bytes` as text, each byte that starts no well-formed sequence decoded to INVALID_UTF8_MARK. */
function decodeMarkingInvalid(bytes: Buffer): string {
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; ) {
    const n = sequenceAt(bytes, i);
    if (n > 0) {
      i += n;
      continue;
    }
    parts.push(bytes.toString('utf8', start, i), INVALID_UTF8_MARK);
    start = ++i;
  }
  parts.push(bytes.toString('utf8', start));
  return parts.join('');
}

/**
 * For a scope whose routes take multipart uploads only: a JSON body there is the wrong media type.
 */
export function refuseJsonBodies(scope: FastifyInstance, takes: string): void {
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', (_req, _payload, done) => done(unsupported(`Unsupported Content-Type: this route takes ${takes}.`), undefined));
}
