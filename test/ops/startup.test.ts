import { execFile } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { TEST_JWT_KEYS } from '../helpers/pg.ts';
import { checkServerConfig, loadConfig } from '../../src/config.ts';

const root = resolve(import.meta.dirname, '../..');
const execFileP = promisify(execFile);

describe('start-up with PostgreSQL unreachable', () => {
  it('retries with backoff, one clear line per attempt, then stops after DATABASE_CONNECT_TIMEOUT_MS without a stack trace', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/none', DATABASE_CONNECT_TIMEOUT_MS: '1500', AUTH_JWT_KEYS: TEST_JWT_KEYS, LOG_LEVEL: 'info', PORT: '0' };
    delete env.REDIS_URL;
    const err = await execFileP(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: root, env, timeout: 60_000 }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(1);
    const lines = err!.stderr.split('\n').filter(Boolean);
    const retries = lines.filter((l) => l.includes('"msg":"PostgreSQL unreachable, retrying"'));
    expect(retries.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(retries[0]!)).toMatchObject({ level: 40, attempt: 1, retryInMs: 250, reason: expect.stringContaining('ECONNREFUSED') });
    expect(JSON.parse(retries[1]!)).toMatchObject({ attempt: 2, retryInMs: 500 });
    expect(lines.at(-1)).toMatch(/^Failed to start: PostgreSQL unreachable after \d+ attempt\(s\) .*DATABASE_CONNECT_TIMEOUT_MS=1500.*ECONNREFUSED/);
    expect(err!.stderr).not.toMatch(/\n\s+at /);
  }, 90_000);
});

describe('start-up checks before anything heavy loads', () => {
  const start = (env: NodeJS.ProcessEnv) => {
    const full: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', ...env };
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete full[k];
    return execFileP(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: root, env: full, timeout: 60_000 }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
  };

  it('a port in use is one line naming PORT, before the database is tried (no stack trace)', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as AddressInfo).port;
    try {
      // An unreachable database with a long wait: reaching it first would take a minute and say so.
      const err = await start({ PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/none', DATABASE_CONNECT_TIMEOUT_MS: '600000', AUTH_JWT_KEYS: TEST_JWT_KEYS });
      expect(err.code).toBe(1);
      expect(err.stderr.trim().split('\n')).toEqual([`Failed to start: PORT=${port} is already in use on 127.0.0.1 (EADDRINUSE): stop the other process or set PORT to a free port.`]);
    } finally {
      busy.close();
    }
  }, 90_000);

  it('a production start without AUTH_JWT_KEYS exits 2 naming the setting (NODE_ENV=production or DATABASE_URL set)', async () => {
    for (const env of [
      { NODE_ENV: 'production', DATA_DIR: '/nonexistent-should-not-be-used', AUTH_JWT_KEYS: undefined, DATABASE_URL: undefined },
      { DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/none', DATABASE_CONNECT_TIMEOUT_MS: '600000', AUTH_JWT_KEYS: undefined },
    ]) {
      const err = await start({ PORT: '0', HOST: '127.0.0.1', ...env });
      expect(err.code, err.stderr).toBe(2);
      expect(err.stderr).toMatch(/^Invalid configuration \(environment variables\):\n {2}AUTH_JWT_KEYS must be set when (NODE_ENV=production|DATABASE_URL is set)/);
      expect(err.stderr).toContain('AUTH_JWT_KEYS=k1:');
    }
  }, 150_000);

  it('a development start on the embedded database needs no keys', () => {
    expect(() => checkServerConfig(loadConfig({ NODE_ENV: 'development' }))).not.toThrow();
    expect(() => checkServerConfig(loadConfig({ NODE_ENV: 'production', AUTH_JWT_KEYS: TEST_JWT_KEYS }))).not.toThrow();
    expect(() => checkServerConfig(loadConfig({ DATABASE_URL: 'postgresql://u@db/cms' }))).toThrow(/AUTH_JWT_KEYS must be set when DATABASE_URL is set/);
  });
});
