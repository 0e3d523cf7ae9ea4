import { z } from 'zod';

const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
    .optional()
    .transform((v) => (v === undefined || v === '' ? fallback : v === 'true' || v === '1' || v === 'yes'));

const int = (fallback: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).optional().transform((v) => v ?? fallback);

const envSchema = z.object({
  PORT: int(4000, 0, 65535),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().url().optional().or(z.literal('').transform(() => undefined)),
  DATA_DIR: z.string().default('./.data'),
  REDIS_URL: z.string().url().optional().or(z.literal('').transform(() => undefined)),
  MIGRATE_ON_START: bool(true),
  RATE_LIMIT_PER_MINUTE: int(600, 1, 10_000_000),
  WEBHOOK_ALLOW_HTTP: bool(false),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool(false),
  WEBHOOK_TIMEOUT_MS: int(10_000, 100, 120_000),
  WEBHOOK_MAX_ATTEMPTS: int(6, 1, 50),
  WEBHOOK_DISABLE_AFTER_FAILURES: int(20, 1, 100_000),
  WEBHOOK_LOG_RETENTION_DAYS: int(30, 1, 3650),
  WORKER_IN_PROCESS: bool(true),
  SEED_DEMO: bool(true),
  BODY_LIMIT_BYTES: int(1_048_576, 1024, 100 * 1_048_576),
  UPLOAD_LIMIT_BYTES: int(10 * 1_048_576, 1024, 1024 * 1_048_576),
  GRAPHQL_INTROSPECTION: bool(true),
  GRAPHQL_MAX_DEPTH: int(10, 1, 100),
  GRAPHQL_MAX_COMPLEXITY: int(5000, 10, 10_000_000),
  PUBLIC_URL: z.string().url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Config = z.output<typeof envSchema>;

export class ConfigError extends Error {}

/** Reads and validates the environment once; every problem is named so a bad deploy fails loudly. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return { ...parsed.data, ...overrides };
}
