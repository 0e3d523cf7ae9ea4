import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { createPrivateDatabase } from '../db/private-db.ts';
import { startAndStop } from '../helpers/start-server.ts';

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
      // A deployment: local webhook receivers stay refused, so the start says nothing of them.
      expect(quiet).not.toMatch(/receivers on this machine/);
      expect(await projects()).toBe(0);

      await startAndStop({ DATABASE_URL: url, SEED_DEMO: 'true' });
      expect(await projects()).toBe(1);
    }, 200_000);
  });
});
