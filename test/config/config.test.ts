import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('configuration', () => {
  it('has working defaults with nothing set (embedded database, no Redis)', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 4000,
      HOST: '0.0.0.0',
      DATA_DIR: './.data',
      MIGRATE_ON_START: true,
      SEED_DEMO: true,
      WORKER_IN_PROCESS: true,
      RATE_LIMIT_PER_MINUTE: 600,
      LOG_LEVEL: 'info',
    });
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.REDIS_URL).toBeUndefined();
  });

  it('parses booleans, numbers and URLs; empty strings mean unset', () => {
    const c = loadConfig({
      PORT: '8080',
      SEED_DEMO: 'false',
      MIGRATE_ON_START: '0',
      WEBHOOK_ALLOW_HTTP: 'YES',
      DATABASE_URL: 'postgresql://u:p@db:5432/cms',
      REDIS_URL: '',
      LOG_LEVEL: 'DEBUG',
    });
    expect(c).toMatchObject({ PORT: 8080, SEED_DEMO: false, MIGRATE_ON_START: false, WEBHOOK_ALLOW_HTTP: true, DATABASE_URL: 'postgresql://u:p@db:5432/cms', LOG_LEVEL: 'debug' });
    expect(c.REDIS_URL).toBeUndefined();
  });

  it('reads replica URLs as a list, refuses a bad one or replicas without a primary, and echoes no password', () => {
    const c = loadConfig({ DATABASE_URL: 'postgresql://u:p@db:5432/cms', DATABASE_REPLICA_URLS: ' postgresql://u:p@r1:5432/cms , postgres://u:p@r2/cms,' });
    expect(c.DATABASE_REPLICA_URLS).toEqual(['postgresql://u:p@r1:5432/cms', 'postgres://u:p@r2/cms']);
    expect(loadConfig({}).DATABASE_REPLICA_URLS).toEqual([]);
    expect(() => loadConfig({ DATABASE_URL: 'postgresql://db/cms', DATABASE_REPLICA_URLS: 'postgresql://u:secret@r1/cms,mysql://r2' })).toThrow(/DATABASE_REPLICA_URLS must be comma-separated URLs/);
    expect(() => loadConfig({ DATABASE_URL: 'postgresql://db/cms', DATABASE_REPLICA_URLS: 'postgresql://u:secret@r1/cms,mysql://r2' })).not.toThrow(/secret/);
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgresql://r1/cms' })).toThrow(/DATABASE_REPLICA_URLS needs DATABASE_URL/);
  });

  it('names every bad variable, says what is expected, and never echoes values', () => {
    let err: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        RATE_LIMIT_PER_MINUTE: '0',
        SEED_DEMO: 'maybe',
        DATABASE_URL: 'mysql://root:hunter2@db/cms',
        REDIS_URL: 'localhost:6379',
        LOG_LEVEL: 'loud',
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const msg = (err as Error).message;
    expect(msg).toMatch(/PORT must be a whole number from 0 to 65535/);
    expect(msg).toMatch(/RATE_LIMIT_PER_MINUTE must be a whole number from 1/);
    expect(msg).toMatch(/SEED_DEMO must be true or false/);
    expect(msg).toMatch(/DATABASE_URL must be a URL such as postgresql:\/\//);
    expect(msg).toMatch(/REDIS_URL must be a URL such as redis:\/\//);
    expect(msg).toMatch(/LOG_LEVEL must be one of/);
    expect(msg).not.toContain('hunter2');
  });

  it('the server refuses to start on a bad environment with exit code 2 and the message', async () => {
    const root = resolve(import.meta.dirname, '../..');
    const res = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: root,
      env: { ...process.env, PORT: '99999', DATABASE_URL: '', DATA_DIR: '/nonexistent-should-not-be-used' },
      timeout: 60_000,
    }).catch((e) => e);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/Invalid configuration[\s\S]*PORT must be a whole number/);
  }, 120_000);
});
