import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolveHost } from './options.ts';
import { bareHost, checkUrlShape, normaliseAddress, resolveAndCheck, type UrlPolicy } from './url-safety.ts';

export type SendResult =
  | { kind: 'response'; status: number; body: string; bodyTruncated: boolean }
  | { kind: 'blocked'; message: string }
  | { kind: 'timeout'; message: string }
  | { kind: 'error'; message: string };

export interface SendInput {
  url: string;
  body: Buffer;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Bytes of the response body kept for the log. */
  responseLimitBytes: number;
}

/** Response bodies past this are not read at all: the socket is dropped instead. */
const MAX_RESPONSE_READ = 1024 * 1024;

/**
 * POSTs one webhook request. The SSRF rules are applied again here, against the addresses the
 * socket actually connects to: the connection's DNS lookup goes through `resolveAndCheck` and hands
 * the socket only checked addresses, so a name re-pointed after save (DNS rebinding) cannot reach
 * an internal address. IP-literal URLs never reach a lookup, so they are checked before connecting.
 * Redirects are not followed (a 3xx is just a non-2xx answer).
 */
export class WebhookHttpSender {
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 });

  constructor(
    private readonly policy: () => UrlPolicy,
    private readonly resolveHost: () => ResolveHost,
  ) {}

  async send(input: SendInput): Promise<SendResult> {
    const policy = this.policy();
    const shape = checkUrlShape(input.url, policy);
    if (!('url' in shape)) return { kind: 'blocked', message: shape.message };
    const url = shape.url;
    const host = bareHost(url.hostname);

    let blocked: string | null = null;
    const lookup: LookupFunction = (hostname, options, callback) => {
      resolveAndCheck(hostname, policy, this.resolveHost()).then(
        (result) => {
          if (!('addresses' in result)) {
            if (result.kind === 'blocked') blocked = result.message;
            const err = Object.assign(new Error(result.message), { code: result.kind === 'blocked' ? 'EWEBHOOKBLOCKED' : 'ENOTFOUND' });
            callback(err, '', 4);
            return;
          }
          const list = result.addresses.map(normaliseAddress);
          if (options.all) (callback as unknown as (e: null, a: typeof list) => void)(null, list);
          else callback(null, list[0].address, list[0].family);
        },
        (err: Error) => callback(err as NodeJS.ErrnoException, '', 4),
      );
    };

    // IP literals bypass the lookup hook, so they are judged here.
    if (/^[\d.]+$|:/.test(host)) {
      const literal = await resolveAndCheck(host, policy, this.resolveHost());
      if (!('addresses' in literal)) return { kind: literal.kind === 'blocked' ? 'blocked' : 'error', message: literal.message };
    }

    return new Promise<SendResult>((resolve) => {
      let settled = false;
      let timedOut = false;
      const finish = (r: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(r);
      };
      const isHttps = url.protocol === 'https:';
      const req = (isHttps ? https : http).request(
        url,
        {
          method: 'POST',
          agent: isHttps ? this.httpsAgent : this.httpAgent,
          lookup,
          headers: { ...input.headers, 'content-length': String(input.body.length) },
        },
        (res) => {
          const kept: Buffer[] = [];
          let keptBytes = 0;
          let total = 0;
          res.on('data', (chunk: Buffer) => {
            total += chunk.length;
            if (keptBytes < input.responseLimitBytes) {
              const slice = chunk.subarray(0, input.responseLimitBytes - keptBytes);
              kept.push(slice);
              keptBytes += slice.length;
            }
            if (total > MAX_RESPONSE_READ) {
              res.destroy();
              finish(response(res.statusCode ?? 0, kept, true));
            }
          });
          res.on('end', () => finish(response(res.statusCode ?? 0, kept, total > keptBytes)));
          res.on('error', () => finish(response(res.statusCode ?? 0, kept, true)));
          res.on('aborted', () => finish(response(res.statusCode ?? 0, kept, true)));
        },
      );
      const timer = setTimeout(() => {
        timedOut = true;
        req.destroy(new Error('timeout'));
      }, input.timeoutMs);
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (blocked !== null || err.code === 'EWEBHOOKBLOCKED') finish({ kind: 'blocked', message: blocked ?? err.message });
        else if (timedOut) finish({ kind: 'timeout', message: `No complete response within ${input.timeoutMs} ms.` });
        else finish({ kind: 'error', message: describe(err) });
      });
      req.end(input.body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

function response(status: number, kept: Buffer[], truncated: boolean): SendResult {
  return { kind: 'response', status, body: Buffer.concat(kept).toString('utf8'), bodyTruncated: truncated };
}

function describe(err: NodeJS.ErrnoException): string {
  if (err instanceof AggregateError && err.errors.length) return describe(err.errors[0] as NodeJS.ErrnoException);
  return err.code ? `${err.code}: ${err.message}` : err.message;
}
