import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/client.ts';
import { openPostgres } from '../../../src/db/client.ts';
import { createProject } from '../../../src/projects/operations.ts';
import { issueToken } from '../../../src/auth/tokens.ts';
import { createCollection } from '../../helpers/fixtures.ts';
import { createTestDatabase, TEST_JWT_KEYS } from '../../helpers/pg.ts';

/**
 * Publishes, reverts and draft edits of ONE entry arriving at once through TWO server processes that
 * share one PostgreSQL database. Plan `grow` keeps 50 versions; 10 sequential publishes plus 50
 * concurrent mints make 60, so retention prunes v1..v10 while the burst runs. Every revert targets
 * v10, which is pruned only by the 60th mint, i.e. never before a revert has read it: all 50
 * publish/revert requests must succeed.
 */
describe('concurrent publish / revert / edit across two server processes', () => {
  const servers: Array<{ child: ChildProcess; base: string; output: string[] }> = [];
  let db: Database;
  let drop: () => Promise<void>;
  let headers: Record<string, string>;

  beforeAll(async () => {
    const created = await createTestDatabase();
    drop = created.drop;
    db = openPostgres(created.url, 2);
    const project = await createProject(db.prisma, { name: 'Race', plan: 'grow' });
    const token = await issueToken(db.prisma, { projectUuid: project.uuid, abilities: ['*'], name: 'racer' });
    headers = { 'project-id': project.uuid, authorization: `Bearer ${token.token}`, 'content-type': 'application/json' };
    await createCollection(db.prisma, project.id, { slug: 'posts', fields: [{ name: 'title', type: 'text' }, { name: 'n', type: 'number' }] });
    for (let i = 0; i < 2; i++) servers.push(await startServer(created.url));
  }, 120_000);

  afterAll(async () => {
    for (const s of servers) stopServer(s.child);
    await db?.close();
    await drop?.();
  });

  it('keeps numbers unique and gapless, exactly one current version, pointer = snapshot, current never pruned', async () => {
    const [a, b] = servers;
    const call = async (base: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };

    const uuid = await createEntryVia(a.base, call);
    for (let i = 1; i <= 10; i++) {
      await edit(a.base, call, uuid, { title: `seq-${i}`, n: i });
      expect((await call(a.base, 'POST', `/api/posts/${uuid}/publish`)).body.version_number).toBe(i);
    }

    type Op = { kind: 'publish' | 'revert' | 'edit'; i: number };
    const ops: Op[] = [];
    for (let i = 0; i < 50; i++) {
      ops.push({ kind: i % 4 === 3 ? 'revert' : 'publish', i });
      if (i % 5 === 0) ops.push({ kind: 'edit', i });
    }
    const results = await Promise.all(
      ops.map(async (op) => {
        const base = op.i % 2 === 0 ? a.base : b.base;
        if (op.kind === 'edit') return { op, res: await edit(base, call, uuid, { title: `edit-${op.i}`, n: 100 + op.i }) };
        const path = op.kind === 'publish' ? `/api/posts/${uuid}/publish` : `/api/posts/${uuid}/versions/10/revert`;
        return { op, res: await call(base, 'POST', path) };
      }),
    );

    const mints = results.filter((r) => r.op.kind !== 'edit');
    for (const r of mints) expect([r.op, r.res.status, r.res.body?.message]).toEqual([r.op, 200, expect.any(String)]);
    const numbers = mints.map((r) => (r.op.kind === 'publish' ? r.res.body.version_number : r.res.body.version.version_number)).sort((x, y) => x - y);
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => 11 + i));
    for (const r of mints.filter((m) => m.op.kind === 'revert')) {
      expect(r.res.body.message).toBe(`Reverted to v10 and published as v${r.res.body.version.version_number}.`);
      expect(r.res.body.entry.fields).toMatchObject({ title: 'seq-10', n: 10 });
    }

    const [entry] = await db.query<{
      id: number; state: string; last_version_number: number; published_version_id: number; published_version_number: number;
      is_draft_dirty: boolean; data_matches: boolean;
    }>(`SELECT id, state, last_version_number, published_version_id, published_version_number, is_draft_dirty,
               data = published_data AS data_matches
        FROM entries WHERE uuid = $1`, [uuid]);
    const [versions] = await db.query<{ n: number; distinct_n: number; lo: number; hi: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT version_number)::int AS distinct_n, min(version_number) AS lo, max(version_number) AS hi
       FROM entry_versions WHERE entry_id = $1`, [entry.id]);
    // Retention: exactly the newest 50 remain, gapless.
    expect(versions).toEqual({ n: 50, distinct_n: 50, lo: 11, hi: 60 });
    expect(entry).toMatchObject({ state: 'published', last_version_number: 60, published_version_number: 60 });
    // The pointer names the newest version, and the published copy is that version's snapshot.
    const [current] = await db.query<{ version_number: number; snapshot_matches: boolean }>(
      `SELECT v.version_number, v.snapshot->'fields' = e.published_data AS snapshot_matches
       FROM entries e JOIN entry_versions v ON v.id = e.published_version_id WHERE e.id = $1`, [entry.id]);
    expect(current).toEqual({ version_number: 60, snapshot_matches: true });
    // The dirty flag tells the truth about draft vs published copy.
    if (!entry.is_draft_dirty) expect(entry.data_matches).toBe(true);
    // Every version's snapshot agrees with what its mint reported (publish responses carry the entry).
    const snaps = await db.query<{ version_number: number; fields: Record<string, unknown> }>(
      `SELECT version_number, snapshot->'fields' AS fields FROM entry_versions WHERE entry_id = $1`, [entry.id]);
    const byNumber = new Map(snaps.map((s) => [s.version_number, s.fields]));
    for (const r of mints) {
      const n = r.op.kind === 'publish' ? r.res.body.version_number : r.res.body.version.version_number;
      expect(byNumber.get(n)).toEqual(r.res.body.entry.fields);
    }
    // One content.published event per minted version, no more, no fewer.
    const [events] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox_events WHERE entry_uuid = $1 AND event = 'content.published'`, [uuid]);
    expect(events.n).toBe(60);

    // And both processes agree on which version is current.
    for (const s of servers) {
      const list = await call(s.base, 'GET', `/api/posts/${uuid}/versions`);
      const flagged = list.body.data.filter((v: { is_current_published: boolean }) => v.is_current_published);
      expect(flagged.map((v: { version_number: number }) => v.version_number)).toEqual([60]);
    }
  }, 120_000);
});

type Call = (base: string, method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

async function createEntryVia(base: string, call: Call): Promise<string> {
  const res = await call(base, 'POST', '/api/posts', { data: { title: 'seq-0', n: 0 } });
  expect(res.status).toBe(201);
  return res.body.uuid;
}

/** A draft edit: PATCH of the entries API. */
async function edit(base: string, call: Call, uuid: string, data: Record<string, unknown>) {
  const res = await call(base, 'PATCH', `/api/posts/${uuid}`, { data });
  expect([res.status, res.body?.message]).toEqual([200, undefined]);
  return res;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

async function startServer(databaseUrl: string): Promise<{ child: ChildProcess; base: string; output: string[] }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    AUTH_JWT_KEYS: TEST_JWT_KEYS,
    PORT: String(port),
    HOST: '127.0.0.1',
    SEED_DEMO: 'false',
    MIGRATE_ON_START: 'true',
    WORKER_IN_PROCESS: 'false',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '1000000',
  };
  delete env.REDIS_URL;
  // Own process group, so the test can stop npx and the node process it starts together.
  const child = spawn('npx', ['tsx', 'src/main.ts'], { cwd: process.cwd(), env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stdout?.on('data', (d) => output.push(String(d)));
  child.stderr?.on('data', (d) => output.push(String(d)));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${output.join('')}`);
    try {
      const res = await fetch(`${base}/healthz`);
      if (res.ok) return { child, base, output };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  stopServer(child);
  throw new Error(`server did not start within 90 s:\n${output.join('')}`);
}

function stopServer(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
}
