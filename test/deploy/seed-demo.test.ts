import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { createPrivateDatabase } from '../db/private-db.ts';
import { root } from '../cli/subprocess.ts';
import { TEST_JWT_KEYS } from '../helpers/pg.ts';

/** Starts `src/main.ts` as the image does, waits until it listens, stops it; returns its stderr. */
function startAndStop(env: Record<string, string>): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: root,
      env: { ...process.env, AUTH_JWT_KEYS: TEST_JWT_KEYS, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', WORKER_IN_PROCESS: 'false', ...env },
    });
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`the server did not start:\n${stderr}`));
    }, 90_000);
    child.stderr.on('data', (d) => {
      stderr += d;
      // The server seeds (or not) before it listens.
      if (/listening/.test(stderr)) child.kill('SIGTERM');
    });
    child.stdout.on('data', (d) => (stderr += d));
    child.on('exit', () => {
      clearTimeout(timer);
      done(stderr);
    });
  });
}

describe('SEED_DEMO', () => {
  it('defaults to true on the embedded database and to false when DATABASE_URL is set; an explicit value wins', () => {
    expect(loadConfig({}).SEED_DEMO).toBe(true);
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@db:5432/cms' }).SEED_DEMO).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@db:5432/cms', SEED_DEMO: 'true' }).SEED_DEMO).toBe(true);
    expect(loadConfig({ SEED_DEMO: 'no' }).SEED_DEMO).toBe(false);
  });

  describe('a server on PostgreSQL', () => {
    let url: string;
    let drop: () => Promise<void>;
    beforeAll(async () => ({ url, drop } = await createPrivateDatabase('cms_seed', { template: false })));
    afterAll(() => drop());

    const projects = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM projects')).rows[0].n);
      } finally {
        await client.end();
      }
    };

    it('creates no demo project and prints no token on its first start unless asked', async () => {
      const quiet = await startAndStop({ DATABASE_URL: url });
      expect(quiet).not.toMatch(/Demo project created/);
      expect(quiet).not.toMatch(/cms_[A-Za-z0-9_-]{43}/);
      expect(await projects()).toBe(0);

      await startAndStop({ DATABASE_URL: url, SEED_DEMO: 'true' });
      expect(await projects()).toBe(1);
    }, 200_000);
  });
});
