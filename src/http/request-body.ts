import { Transform, type TransformCallback } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';

/**
 * How request bodies are read (docs/foundation.md, "Request bodies"):
 * - JSON routes take `application/json` in UTF-8 (RFC 8259 allows no other charset on the wire); any
 *   other media type (`text/plain`, `application/xml`, form posts) or charset is refused with 415 before
 *   the body is read, instead of reaching validation as a string. Upload routes take
 *   `multipart/form-data` only (src/rest/asset-routes.ts).
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
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const charset = charsetOf(req.headers['content-type']);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      done(unsupported(`Unsupported charset "${charset}": JSON bodies must be UTF-8 (send charset=utf-8 or none).`), undefined);
      return;
    }
    const text = (body as string).trim();
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

/**
 * For a scope whose routes take multipart uploads only: a JSON body there is the wrong media type.
 */
export function refuseJsonBodies(scope: FastifyInstance, takes: string): void {
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', (_req, _payload, done) => done(unsupported(`Unsupported Content-Type: this route takes ${takes}.`), undefined));
}
