import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const execFileP = promisify(execFile);

describe('start-up with PostgreSQL unreachable', () => {
  it('retries with backoff, one clear line per attempt, then stops after DATABASE_CONNECT_TIMEOUT_MS without a stack trace', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/none', DATABASE_CONNECT_TIMEOUT_MS: '1500', LOG_LEVEL: 'info', PORT: '0' };
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
