import { z } from 'zod';

/**
 * Every setting the service reads from the environment, with its default. docs/foundation.md has the
 * same table for operators; keep the two in step. Values are never echoed back in errors (URLs can
 * carry passwords).
 */

/** A boolean that may be left unset (undefined), for defaults that depend on other settings. */
const optionalBool = z
  .string()
  .trim()
  .toLowerCase()
  .optional()
  .refine((v) => v === undefined || ['true', 'false', '1', '0', 'yes', 'no', ''].includes(v), {
    message: 'must be true or false (also accepted: 1/0, yes/no)',
  })
  .transform((v) => (v === undefined || v === '' ? undefined : v === 'true' || v === '1' || v === 'yes'));

const bool = (fallback: boolean) => optionalBool.transform((v) => v ?? fallback);

const int = (fallback: number, min: number, max: number) =>
  z
    .string()
    .trim()
    .optional()
    .refine((v) => v === undefined || v === '' || (/^-?\d+$/.test(v) && Number(v) >= min && Number(v) <= max), {
      message: `must be a whole number from ${min} to ${max}`,
    })
    .transform((v) => (v === undefined || v === '' ? fallback : Number(v)));

/** Whether `v` parses as a URL with one of the schemes. */
function hasScheme(v: string, schemes: string[]): boolean {
  try {
    return schemes.includes(new URL(v).protocol.replace(/:$/, ''));
  } catch {
    return false;
  }
}

/** An optional URL with one of the given schemes; empty means unset. */
const url = (schemes: string[], example: string) =>
  z
    .string()
    .trim()
    .optional()
    .refine((v) => v === undefined || v === '' || hasScheme(v, schemes), { message: `must be a URL such as ${example}` })
    .transform((v) => (v === undefined || v === '' ? undefined : v));

/** Comma-separated URLs with one of the given schemes; empty means none. */
const urlList = (schemes: string[], example: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v.split(',').map((u) => u.trim()).filter(Boolean) : []))
    .refine((list) => list.every((v) => hasScheme(v, schemes)), { message: `must be comma-separated URLs such as ${example}` });

/** An optional whole number; empty means unset. */
const optionalInt = (min: number, max: number) =>
  z
    .string()
    .trim()
    .optional()
    .refine((v) => v === undefined || v === '' || (/^\d+$/.test(v) && Number(v) >= min && Number(v) <= max), {
      message: `must be a whole number from ${min} to ${max}`,
    })
    .transform((v) => (v === undefined || v === '' ? undefined : Number(v)));

/** An optional string; empty means unset. */
const optionalText = () =>
  z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === undefined || v === '' ? undefined : v));

/**
 * CORS_ORIGINS: empty = no cross-origin access, `*` = any origin (never with credentials), else a
 * comma-separated list of exact origins (`https://app.example.com`), each allowed with credentials.
 */
/**
 * CORS_ALLOW_HEADERS: request headers a cross-origin browser may send beside the API's own (src/http/cors.ts),
 * comma-separated; by default the tracing headers browser SDKs add (W3C Trace Context, W3C Baggage, Sentry).
 */
const headerNames = z
  .string()
  .optional()
  .transform((v) => (v ?? 'traceparent,tracestate,baggage,sentry-trace').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean))
  .refine((list) => list.every((h) => /^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(h) && h !== '*'), {
    message: 'must be a comma-separated list of header names such as traceparent,baggage (no *)',
  });

const origins = z
  .string()
  .optional()
  .transform((v) => (v ?? '').split(',').map((o) => o.trim().replace(/\/$/, '')).filter(Boolean))
  .refine((list) => list.every((o) => o === '*' || /^https?:\/\/[^/\s]+$/.test(o)), {
    message: 'must be empty, * or a comma-separated list of origins such as https://app.example.com',
  });

/**
 * AUTH_JWT_KEYS: `kid:secret` pairs separated by commas. The first signs new access tokens; all of
 * them verify (by the token's `kid`), so a key is rotated by putting the new one first and dropping
 * the old one after the access-token lifetime has passed. Secrets are at least 32 characters.
 */
const jwtKeys = z
  .string()
  .trim()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === '') return [];
    const keys = v.split(',').map((pair) => {
      const at = pair.indexOf(':');
      return { kid: pair.slice(0, at).trim(), secret: pair.slice(at + 1).trim() };
    });
    const kids = new Set<string>();
    for (const k of keys) {
      if (!/^[A-Za-z0-9._-]{1,64}$/.test(k.kid) || k.secret.length < 32 || kids.has(k.kid)) {
        ctx.addIssue({ code: 'custom', message: 'must be comma-separated kid:secret pairs (distinct kids of letters, digits, . _ -; secrets of at least 32 characters)' });
        return z.NEVER;
      }
      kids.add(k.kid);
    }
    return keys;
  });

/** One social sign-in provider: id tokens must come from `issuer` for `audience`, signed by a key of its JWKS. */
const socialProvider = z
  .object({
    issuer: z.string().min(1),
    audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
    /** Fetched and cached by jose (createRemoteJWKSet). */
    jwksUri: z.url().optional(),
    /** Inline public keys (`{ keys: [...] }`), for providers whose keys are pinned or for tests. */
    jwks: z.object({ keys: z.array(z.record(z.string(), z.unknown())).min(1) }).optional(),
  })
  .refine((p) => Boolean(p.jwksUri) !== Boolean(p.jwks), { message: 'needs exactly one of jwksUri or jwks' });

export type SocialProviderConfig = z.output<typeof socialProvider>;

/** AUTH_SOCIAL_PROVIDERS: JSON `{ "<provider>": { issuer, audience, jwksUri | jwks } }`. */
const socialProviders = z
  .string()
  .trim()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === '') return {};
    let json: unknown;
    try {
      json = JSON.parse(v);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be JSON: { "google": { "issuer": ..., "audience": ..., "jwksUri": ... } }' });
      return z.NEVER;
    }
    const parsed = z.record(z.string().regex(/^[a-z0-9_-]{1,50}$/, 'provider names are lowercase letters, digits, _ or -'), socialProvider).safeParse(json);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: `${issue.path.join('.')}: ${issue.message}` });
      return z.NEVER;
    }
    return parsed.data;
  });


const envSchema = z
  .object({
  PORT: int(4000, 0, 65535),
  HOST: z.string().trim().min(1, 'must not be empty').default('0.0.0.0'),
  DATABASE_URL: url(['postgres', 'postgresql'], 'postgresql://user:password@host:5432/dbname'),
  DATA_DIR: z.string().trim().min(1, 'must not be empty').default('./.data'),
  /** Streaming replicas of DATABASE_URL that read-only operations use (src/db/replicas.ts). */
  DATABASE_REPLICA_URLS: urlList(['postgres', 'postgresql'], 'postgresql://user:password@replica1:5432/dbname'),
  /** Replay lag past which a replica leaves rotation (it rejoins once back under it). */
  REPLICA_MAX_LAG_MS: int(2000, 1, 3_600_000),
  /** Longest a read waits for a replica to replay a write it must see, before reading the primary. */
  REPLICA_WAIT_MS: int(100, 0, 60_000),
  /** How often each replica's replay position is checked. */
  REPLICA_CHECK_MS: int(250, 10, 60_000),
  REDIS_URL: url(['redis', 'rediss'], 'redis://host:6379'),
  MIGRATE_ON_START: bool(true),
  RATE_LIMIT_PER_MINUTE: int(600, 1, 10_000_000),
  /**
   * How much of an IPv6 address names one client for every per-address budget, slot and cap
   * (src/edge/client-key.ts): its first RATE_LIMIT_IPV6_PREFIX bits. IPv4 addresses count whole.
   */
  RATE_LIMIT_IPV6_PREFIX: int(64, 32, 128),
  WEBHOOK_ALLOW_HTTP: bool(false),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool(false),
  /**
   * Receivers on this machine only (http://localhost, 127.0.0.0/8, ::1), for trying webhooks locally.
   * Unset: on for the embedded database outside production (webhookOptions), off otherwise; never
   * allowed with NODE_ENV=production (WEBHOOK_ALLOW_PRIVATE_NETWORKS is the deliberate setting there).
   */
  WEBHOOK_ALLOW_LOCALHOST: optionalBool,
  WEBHOOK_TIMEOUT_MS: int(10_000, 100, 120_000),
  WEBHOOK_MAX_ATTEMPTS: int(6, 1, 50),
  WEBHOOK_DISABLE_AFTER_FAILURES: int(20, 1, 100_000),
  WEBHOOK_LOG_RETENTION_DAYS: int(30, 1, 3650),
  WORKER_IN_PROCESS: bool(true),
  /** Days a trashed entry is kept before the worker deletes it for good; 0 keeps the trash forever. */
  TRASH_RETENTION_DAYS: int(30, 0, 36_500),
  SEED_DEMO: optionalBool,
  BODY_LIMIT_BYTES: int(1_048_576, 1024, 100 * 1_048_576),
  UPLOAD_LIMIT_BYTES: int(10 * 1_048_576, 1024, 1024 * 1_048_576),
  READ_CACHE_MB: int(64, 0, 65_536),
  AUTH_CACHE_MS: int(1000, 0, 3_600_000),
  GRAPHQL_INTROSPECTION: bool(true),
  GRAPHQL_MAX_DEPTH: int(10, 1, 100),
  GRAPHQL_MAX_COMPLEXITY: int(5000, 10, 10_000_000),
  /** Live subscriptions (docs/graphql.md "Subscriptions"): caps, heartbeat, idle timeout, resume window. */
  LIVE_MAX_SUBSCRIPTIONS: int(10_000, 0, 1_000_000),
  LIVE_MAX_PER_TOKEN: int(20, 1, 100_000),
  LIVE_HEARTBEAT_MS: int(15_000, 100, 600_000),
  LIVE_IDLE_TIMEOUT_MS: int(1_800_000, 1000, 86_400_000),
  LIVE_RESUME_WINDOW_SECONDS: int(3600, 0, 86_400),
  LIVE_MAX_BACKLOG: int(10_000, 1, 1_000_000),
  LIVE_MAX_QUEUE: int(1000, 1, 1_000_000),
  LIVE_MAX_QUEUE_BYTES: int(1_048_576, 1024, 1024 * 1_048_576),
  LIVE_POLL_MS: int(1000, 10, 60_000),
  /** Diagnostic: a file the live path appends its stage timestamps to (src/live/stages.ts, bench/live.ts). */
  LIVE_STAGE_LOG: z.string().min(1).optional(),
  SHUTDOWN_GRACE_MS: int(10_000, 0, 600_000),
  DATABASE_CONNECT_TIMEOUT_MS: int(60_000, 0, 3_600_000),
  /**
   * Bounds on a request's waits in PostgreSQL (src/db/postgres.ts, PoolLimits): for a pool connection,
   * for a lock, for one statement. Each is answered 503 with Retry-After; 0 = unbounded.
   */
  DATABASE_POOL_TIMEOUT_MS: int(5_000, 0, 600_000),
  DATABASE_LOCK_TIMEOUT_MS: int(5_000, 0, 600_000),
  DATABASE_STATEMENT_TIMEOUT_MS: int(60_000, 0, 3_600_000),
  METRICS_PORT: optionalInt(1, 65535),
  METRICS_TOKEN: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === undefined || v === '' ? undefined : v)),
  CORS_ORIGINS: origins,
  CORS_ALLOW_HEADERS: headerNames,
  COMPRESSION_MIN_BYTES: int(1024, 1, 100 * 1_048_576),
  /**
   * Slow and greedy clients (docs/foundation.md, "Connections and timeouts"): the whole request
   * (headers and body) must arrive within HTTP_REQUEST_TIMEOUT_MS, its headers within
   * HTTP_HEADERS_TIMEOUT_MS; a keep-alive connection idle between requests is closed after
   * HTTP_KEEP_ALIVE_TIMEOUT_MS; one client address holds at most HTTP_MAX_CONNECTIONS_PER_ADDRESS
   * open connections (0 = no cap).
   */
  HTTP_REQUEST_TIMEOUT_MS: int(120_000, 100, 3_600_000),
  HTTP_HEADERS_TIMEOUT_MS: int(20_000, 100, 600_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: int(72_000, 100, 600_000),
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: int(256, 0, 1_000_000),
  GRAPHQL_MAX_TOKENS: int(5000, 100, 1_000_000),
  GRAPHQL_MAX_ALIASES: int(30, 0, 10_000),
  GRAPHQL_MAX_DIRECTIVES: int(50, 0, 10_000),
  PUBLIC_URL: url(['http', 'https'], 'https://cms.example.com'),
  /** Where asset bytes live: `local` (DATA_DIR/assets, one machine) or `s3` (any S3-compatible store, shared by replicas). */
  ASSET_STORAGE: z
    .string()
    .trim()
    .toLowerCase()
    .optional()
    .refine((v) => v === undefined || v === '' || v === 'local' || v === 's3', { message: 'must be local or s3' })
    .transform((v) => (v === undefined || v === '' ? 'local' : v) as 'local' | 's3'),
  S3_BUCKET: optionalText(),
  /** Unset = AWS's own endpoint for S3_REGION; set for MinIO, R2, Ceph and other S3-compatible stores. */
  S3_ENDPOINT: url(['http', 'https'], 'http://127.0.0.1:9000'),
  S3_REGION: z.string().trim().optional().transform((v) => v || 'us-east-1'),
  /** Both unset = the AWS SDK's default credential chain (instance role, AWS_* variables, profile). */
  S3_ACCESS_KEY_ID: optionalText(),
  S3_SECRET_ACCESS_KEY: optionalText(),
  /** `bucket` in the path instead of the host name; most self-hosted S3-compatible stores need it. */
  S3_FORCE_PATH_STYLE: bool(false),
  /** Images with more pixels than this are refused at upload and never decoded (decompression bombs). */
  IMAGE_MAX_PIXELS: int(100_000_000, 1, 1_000_000_000),
  /**
   * Image work bounded by what it is worth (docs/assets.md "Bounds"): the longest side and the
   * aspect ratio an upload may have (16383, WebP's limit, lets every variant fit every output format),
   * renders at once per process, renders waiting beyond them (503 past it), libvips threads per
   * render, and first renders (variants not stored yet) per client address per minute (429 past it).
   */
  IMAGE_MAX_DIMENSION: int(16_383, 1, 1_000_000),
  IMAGE_MAX_ASPECT_RATIO: int(100, 1, 1_000_000),
  IMAGE_RENDER_CONCURRENCY: int(1, 1, 64),
  IMAGE_RENDER_QUEUE: int(16, 0, 10_000),
  IMAGE_RENDER_THREADS: int(1, 1, 64),
  IMAGE_RENDERS_PER_MINUTE_ADDRESS: int(60, 1, 1_000_000),
  /**
   * The CDN in front of delivery-token reads (docs/foundation.md, "Scaling out", "The CDN"): which purge
   * adapter runs (`none` sends nothing), how long an edge may keep an answer (`s-maxage`) and serve it
   * stale while it refetches (`stale-while-revalidate`), the response header carrying the purge tags,
   * and how long a purge waits after the commit so that every replica's change feed has read it first.
   */
  EDGE_PURGE: z
    .string()
    .trim()
    .toLowerCase()
    .optional()
    .refine((v) => v === undefined || v === '' || ['none', 'varnish', 'fastly', 'cloudflare'].includes(v), { message: 'must be none, varnish, fastly or cloudflare' })
    .transform((v) => (v === undefined || v === '' ? 'none' : v) as 'none' | 'varnish' | 'fastly' | 'cloudflare'),
  EDGE_MAX_AGE: int(3600, 0, 31_536_000),
  EDGE_SWR: int(30, 0, 31_536_000),
  EDGE_TAG_HEADER: z
    .string()
    .trim()
    .optional()
    .refine((v) => v === undefined || v === '' || /^[A-Za-z0-9-]{1,64}$/.test(v), { message: 'must be a header name such as Surrogate-Key or Cache-Tag' })
    .transform((v) => (v === undefined || v === '' ? 'Surrogate-Key' : v)),
  EDGE_PURGE_DELAY_MS: int(250, 0, 60_000),
  /** Varnish instances (comma-separated base URLs) that take `PURGE` with an `xkey-softpurge` header (deploy/varnish.vcl). */
  VARNISH_PURGE_URLS: urlList(['http', 'https'], 'http://varnish:80'),
  FASTLY_API_URL: url(['http', 'https'], 'https://api.fastly.com').transform((v) => v ?? 'https://api.fastly.com'),
  FASTLY_SERVICE_ID: optionalText(),
  FASTLY_API_TOKEN: optionalText(),
  CLOUDFLARE_API_URL: url(['http', 'https'], 'https://api.cloudflare.com/client/v4').transform((v) => v ?? 'https://api.cloudflare.com/client/v4'),
  CLOUDFLARE_ZONE_ID: optionalText(),
  CLOUDFLARE_API_TOKEN: optionalText(),
  /** `production` stops the API from handing email verification tokens to callers (docs/auth.md). */
  NODE_ENV: z.string().trim().optional().transform((v) => (v === undefined || v === '' ? 'development' : v)),
  AUTH_JWT_KEYS: jwtKeys,
  AUTH_ACCESS_TTL_SECONDS: int(900, 30, 86_400),
  AUTH_REFRESH_TTL_SECONDS: int(2_592_000, 60, 31_536_000),
  AUTH_EMAIL_VERIFICATION_TTL_SECONDS: int(86_400, 60, 2_592_000),
  AUTH_SOCIAL_PROVIDERS: socialProviders,
  AUTH_RATE_PER_MINUTE_ADDRESS: int(30, 1, 1_000_000),
  AUTH_RATE_PER_MINUTE_ACCOUNT: int(10, 1, 1_000_000),
  AUTH_LOCKOUT_ATTEMPTS: int(5, 1, 1000),
  AUTH_LOCKOUT_SECONDS: int(900, 1, 86_400),
  /** Requests per address and minute to the signed-in end-user routes (me, logout, change-password, api-keys). */
  AUTH_RATE_PER_MINUTE_USER: int(300, 1, 1_000_000),
  /** Password hashes (argon2, 19 MiB each) one client address may have running at once in a process. */
  AUTH_HASH_CONCURRENCY_PER_ADDRESS: int(2, 1, 64),
  /** Seconds a just-rotated refresh token still answers (concurrent refreshes, a retry after a lost answer). */
  AUTH_REFRESH_REUSE_GRACE_SECONDS: int(10, 1, 300),
  /** `auto` (default): readable lines on a terminal, JSON lines anywhere else; `json` or `pretty` to choose. */
  LOG_FORMAT: z
    .string()
    .trim()
    .toLowerCase()
    .optional()
    .refine((v) => v === undefined || v === '' || ['auto', 'json', 'pretty'].includes(v), { message: 'must be auto, json or pretty' })
    .transform((v) => (v === undefined || v === '' ? 'auto' : v) as 'auto' | 'json' | 'pretty'),
  LOG_LEVEL: z
    .string()
    .trim()
    .toLowerCase()
    .optional()
    .refine((v) => v === undefined || v === '' || ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(v), {
      message: 'must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .transform((v) => (v === undefined || v === '' ? 'info' : v) as 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'),
})
  .superRefine((c, ctx) => {
    if (c.WEBHOOK_ALLOW_LOCALHOST === true && c.NODE_ENV === 'production') {
      ctx.addIssue({ code: 'custom', path: ['WEBHOOK_ALLOW_LOCALHOST'], message: 'cannot be true with NODE_ENV=production (set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true and WEBHOOK_ALLOW_HTTP=true for receivers on your own network)' });
    }
    const needs: Record<string, Array<keyof typeof c>> = {
      varnish: ['VARNISH_PURGE_URLS'],
      fastly: ['FASTLY_SERVICE_ID', 'FASTLY_API_TOKEN'],
      cloudflare: ['CLOUDFLARE_ZONE_ID', 'CLOUDFLARE_API_TOKEN'],
    };
    for (const name of needs[c.EDGE_PURGE] ?? []) {
      const v = c[name];
      if (v === undefined || (Array.isArray(v) && v.length === 0)) ctx.addIssue({ code: 'custom', path: [name], message: `must be set when EDGE_PURGE=${c.EDGE_PURGE}` });
    }
    if (c.DATABASE_REPLICA_URLS.length > 0 && !c.DATABASE_URL) ctx.addIssue({ code: 'custom', path: ['DATABASE_REPLICA_URLS'], message: 'needs DATABASE_URL (the primary they replicate)' });
    if (c.ASSET_STORAGE === 's3' && !c.S3_BUCKET) ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'must be set when ASSET_STORAGE=s3' });
    if (Boolean(c.S3_ACCESS_KEY_ID) !== Boolean(c.S3_SECRET_ACCESS_KEY)) {
      ctx.addIssue({ code: 'custom', path: [c.S3_ACCESS_KEY_ID ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID'], message: 'must be set together with the other S3 key variable' });
    }
  })
  // The demo project (with a `*` token printed to the log) is for trying the embedded default; a
  // deployment with its own PostgreSQL must not get one unless it asks.
  .transform((c) => ({ ...c, SEED_DEMO: c.SEED_DEMO ?? c.DATABASE_URL === undefined }));

export type Config = z.output<typeof envSchema>;

export class ConfigError extends Error {}

/** Reads and validates the environment once; every problem is named so a bad deploy fails loudly. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')} ${i.message}`);
    throw new ConfigError(`Invalid configuration (environment variables):\n${lines.join('\n')}`);
  }
  return { ...parsed.data, ...overrides };
}

/**
 * What the API server alone requires on top of a valid environment. A production server (NODE_ENV=
 * production or DATABASE_URL set) without AUTH_JWT_KEYS would sign end-user access tokens with a
 * key of its own process: a token from one replica is refused by the next, and a restart signs
 * everyone out. That is refused at start, naming the setting and how to make one.
 */
export function checkServerConfig(config: Config): void {
  if (config.AUTH_JWT_KEYS.length > 0 || (config.NODE_ENV !== 'production' && config.DATABASE_URL === undefined)) return;
  const why = config.NODE_ENV === 'production' ? 'NODE_ENV=production' : 'DATABASE_URL is set';
  throw new ConfigError(
    'Invalid configuration (environment variables):\n' +
      `  AUTH_JWT_KEYS must be set when ${why}: every replica and restart must sign and verify end-user tokens with the same key.\n` +
      `  Make one: AUTH_JWT_KEYS=k1:$(node -e "console.log(require('crypto').randomBytes(48).toString('base64url'))")`,
  );
}
