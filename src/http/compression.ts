import type { FastifyInstance } from 'fastify';
import { constants as zlib } from 'node:zlib';
import compress from '@fastify/compress';

/**
 * br/gzip for responses of at least COMPRESSION_MIN_BYTES (1 KiB by default): the OpenAPI document,
 * introspection, long lists. Small bodies go out as they are, so a cached single-entry read pays
 * nothing. Server-sent events (`text/event-stream`) are never compressed, so they are not buffered.
 *
 * @fastify/compress applies its threshold to strings and buffers only; a stream (GraphQL responses
 * pass Yoga's body through as one) is always compressed. A stream whose `content-length` is known
 * and below the threshold is therefore let through as it is; this hook runs before the plugin's.
 * Brotli at quality 4: JSON shrinks nearly as much as at 11 for a fraction of the CPU.
 */
export async function registerCompression(app: FastifyInstance, minBytes: number): Promise<void> {
  app.addHook('onSend', (req, reply, payload, done) => {
    if (payload !== null && typeof payload === 'object' && !Buffer.isBuffer(payload)) {
      const length = Number(reply.getHeader('content-length'));
      if (Number.isFinite(length) && length < minBytes) req.headers['x-no-compression'] = '1';
    }
    done(null, payload);
  });
  await app.register(compress, {
    global: true,
    // Compressed request bodies are not part of the API; decompression would add a hook to every route.
    globalDecompression: false,
    threshold: minBytes,
    encodings: ['br', 'gzip'],
    // Quality 4 and a 256 KiB window: JSON shrinks nearly as much as at the defaults (11, 4 MiB) for a
    // fraction of the CPU, and each compressing stream allocates a small window, not megabytes.
    brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 4, [zlib.BROTLI_PARAM_LGWIN]: 18 } },
  });
}
