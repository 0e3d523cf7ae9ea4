import type { Config } from '../../config.ts';

/**
 * One CDN's purge-by-tag call. `purge` resolves once the CDN took every tag and throws otherwise (the
 * queue retries: ./purge-queue.ts). Soft purges where the CDN has them: a purged answer is refetched
 * before it is shown again, yet the CDN may still serve it while the API cannot answer.
 */
export interface PurgeAdapter {
  readonly name: 'varnish' | 'fastly' | 'cloudflare';
  purge(tags: readonly string[]): Promise<void>;
}

export type PurgeConfig = Pick<
  Config,
  'EDGE_PURGE' | 'VARNISH_PURGE_URLS' | 'FASTLY_API_URL' | 'FASTLY_SERVICE_ID' | 'FASTLY_API_TOKEN' | 'CLOUDFLARE_API_URL' | 'CLOUDFLARE_ZONE_ID' | 'CLOUDFLARE_API_TOKEN'
>;

/** A purge call that takes longer is a failure (retried), never a stuck worker. */
const TIMEOUT_MS = 10_000;

async function call(url: string, init: RequestInit, what: string): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    throw new Error(`${what}: ${(err as Error).message}`);
  }
  if (!res.ok) throw new Error(`${what} answered ${res.status}: ${(await res.text().catch(() => '')).slice(0, 200)}`);
  return res;
}

/** Splits tags into calls of at most `size` (each CDN caps the tags one call may name). */
const chunks = <T>(list: readonly T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
};

/**
 * Varnish with vmod-xkey (deploy/varnish.vcl): `PURGE /` carrying the tags in `xkey-softpurge`, to
 * every instance (each holds its own objects). All must take it, or the whole purge is retried:
 * a soft purge twice is harmless.
 */
export function varnishAdapter(urls: readonly string[]): PurgeAdapter {
  return {
    name: 'varnish',
    async purge(tags) {
      const results = await Promise.allSettled(
        urls.map((base) => call(new URL('/', base).href, { method: 'PURGE', headers: { 'xkey-softpurge': tags.join(' ') } }, `varnish ${base}`)),
      );
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed.length) throw new Error(failed.map((f) => (f.reason as Error).message).join('; '));
    },
  };
}

/**
 * Fastly: `POST /service/{id}/purge` with the keys as a JSON body (at most 256 per call), the API
 * token in `Fastly-Key` and `Fastly-Soft-Purge: 1` (marks them stale rather than evicting them).
 */
export function fastlyAdapter(baseUrl: string, serviceId: string, token: string): PurgeAdapter {
  const url = `${baseUrl.replace(/\/$/, '')}/service/${encodeURIComponent(serviceId)}/purge`;
  return {
    name: 'fastly',
    async purge(tags) {
      for (const part of chunks(tags, 256)) {
        await call(
          url,
          { method: 'POST', headers: { 'Fastly-Key': token, 'Fastly-Soft-Purge': '1', 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ surrogate_keys: part }) },
          'fastly purge',
        );
      }
    },
  };
}

/**
 * Cloudflare: `POST /zones/{zone}/purge_cache` with `{"tags": [...]}` (at most 30 per call) and a
 * bearer API token; an answer without `success: true` is a failure too.
 */
export function cloudflareAdapter(baseUrl: string, zoneId: string, token: string): PurgeAdapter {
  const url = `${baseUrl.replace(/\/$/, '')}/zones/${encodeURIComponent(zoneId)}/purge_cache`;
  return {
    name: 'cloudflare',
    async purge(tags) {
      for (const part of chunks(tags, 30)) {
        const res = await call(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ tags: part }) }, 'cloudflare purge');
        const body = (await res.json().catch(() => null)) as { success?: unknown; errors?: unknown } | null;
        if (body?.success !== true) throw new Error(`cloudflare purge refused: ${JSON.stringify(body?.errors ?? body).slice(0, 200)}`);
      }
    },
  };
}

/** The adapter `EDGE_PURGE` names, or undefined for `none` (config.ts checks the settings each needs). */
export function purgeAdapterFor(config: PurgeConfig): PurgeAdapter | undefined {
  switch (config.EDGE_PURGE) {
    case 'varnish':
      return varnishAdapter(config.VARNISH_PURGE_URLS);
    case 'fastly':
      return fastlyAdapter(config.FASTLY_API_URL, config.FASTLY_SERVICE_ID!, config.FASTLY_API_TOKEN!);
    case 'cloudflare':
      return cloudflareAdapter(config.CLOUDFLARE_API_URL, config.CLOUDFLARE_ZONE_ID!, config.CLOUDFLARE_API_TOKEN!);
    default:
      return undefined;
  }
}
