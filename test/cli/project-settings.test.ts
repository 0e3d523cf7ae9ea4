import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.ts';
import { openPostgres, type Database } from '../../src/db/client.ts';
import { createPrivateDatabase } from '../db/private-db.ts';

async function cli(argv: string[], env: Record<string, string>) {
  let out = '';
  let err = '';
  const code = await runCli([...argv, '--json'], { LOG_LEVEL: 'silent', ...env }, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err, json: code === 0 ? JSON.parse(out) : undefined };
}

describe('cms project set', () => {
  let url: string;
  let drop: () => Promise<void>;
  let db: Database;
  beforeAll(async () => {
    ({ url, drop } = await createPrivateDatabase('cms_cli_set'));
    db = openPostgres(url, 2);
  });
  afterAll(async () => {
    await db.close();
    await drop();
  });

  it('switches email verification on and off', async () => {
    const p = (await cli(['project', 'create', '--name', 'Acme'], { DATABASE_URL: url })).json;
    const on = await cli(['project', 'set', '--project', p.uuid, '--require-email-verification', 'true'], { DATABASE_URL: url });
    expect(on.code).toBe(0);
    expect(on.json).toEqual({ uuid: p.uuid, require_email_verification: true });
    expect((await db.prisma.project.findUniqueOrThrow({ where: { uuid: p.uuid } })).requireEmailVerification).toBe(true);
    const off = await cli(['project', 'set', '--project', p.uuid, '--require-email-verification', 'false'], { DATABASE_URL: url });
    expect(off.json.require_email_verification).toBe(false);
  });

  it('rejects bad usage with exit 2', async () => {
    const p = (await cli(['project', 'create', '--name', 'B'], { DATABASE_URL: url })).json;
    for (const argv of [
      ['project', 'set', '--require-email-verification', 'true'],
      ['project', 'set', '--project', p.uuid],
      ['project', 'set', '--project', p.uuid, '--require-email-verification', 'maybe'],
      ['project', 'set', '--project', 'nope', '--require-email-verification', 'true'],
    ]) {
      const r = await cli(argv, { DATABASE_URL: url });
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.out).toBe('');
    }
    const missing = await cli(['project', 'set', '--project', '00000000-0000-4000-8000-000000000000', '--require-email-verification', 'true'], { DATABASE_URL: url });
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/Project not found/);
  });
});
