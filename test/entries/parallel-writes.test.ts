import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { createCollection } from '../helpers/fixtures.ts';

/**
 * Two writes to different entries of one project do not wait for each other. Entry A's writer is a
 * second connection that holds its transaction open: the HTTP write to entry B, made meanwhile, must
 * be answered within HOLD_MS, while A's transaction is still open.
 *
 * A's writer is held at two points of its life:
 * - after its statements, before COMMIT: the generation triggers are deferred to the commit;
 * - at its commit, once those triggers ran (`SET CONSTRAINTS ALL IMMEDIATE` runs them where a commit
 *   would, and the transaction stays open as a slow commit's does). The triggers only insert rows
 *   into the content change log (migration 20261128010000), which no other writer waits for; when
 *   they updated one generation row per project, every other write of the project queued here.
 */
const HOLD_MS = 3000;

interface Write {
  name: string;
  send(t: TestApp, p: TestProject, uuid: string): Promise<{ status: number }>;
}

const writes: Write[] = [
  { name: 'draft save (PATCH)', send: (t, p, uuid) => t.request({ method: 'PATCH', url: `/api/posts/${uuid}`, headers: p.headers, body: { data: { title: 'B saved' } } }) },
  { name: 'publish (POST …/publish)', send: (t, p, uuid) => t.request({ method: 'POST', url: `/api/posts/${uuid}/publish`, headers: p.headers }) },
  {
    name: 'publishing update (bulk PATCH, state published)',
    send: (t, p, uuid) =>
      t.request({ method: 'PATCH', url: '/api/bulk/posts/entries', headers: p.headers, body: { items: [{ uuid, data: { title: 'B published' }, state: 'published' }] } }),
  },
  { name: 'create (POST, state published)', send: (t, p) => t.request({ method: 'POST', url: '/api/posts', headers: p.headers, body: { data: { title: 'New' }, state: 'published' } }) },
];

let t: TestApp;
let p: TestProject;
let aId: number;
let bUuid: string;

/** Entry A's writer: a draft save of A in a transaction left open (`fire`: its commit triggers ran). */
async function holdWriteOfA(fire: boolean): Promise<{ pid: number; release(): Promise<void> }> {
  const holder = new pg.Client({ connectionString: t.databaseUrl });
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query(`UPDATE entries SET data = data || '{"title": "A held"}'::jsonb, is_draft_dirty = true, updated_at = now() WHERE id = $1`, [aId]);
  if (fire) await holder.query('SET CONSTRAINTS ALL IMMEDIATE');
  const [{ pid }] = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
  return {
    pid,
    async release() {
      await holder.query('ROLLBACK').catch(() => {});
      await holder.end();
    },
  };
}

/** B's write while A's is held: how long it took, or null when it was still waiting at HOLD_MS. */
async function writeBWhileAHeld(w: Write, fire: boolean): Promise<{ ms: number | null; status: number; blockedBy: string }> {
  const held = await holdWriteOfA(fire);
  let blockedBy = 'nothing';
  let write: Promise<{ status: number }> | undefined;
  try {
    const t0 = performance.now();
    write = w.send(t, p, bUuid);
    const finished = await Promise.race([write.then(() => performance.now() - t0), new Promise<null>((r) => setTimeout(() => r(null), HOLD_MS))]);
    if (finished === null) {
      // Which lock B's backend waits for, named for the failure message.
      const rows = await t.database.query<{ wait: string }>(
        `SELECT a.wait_event_type || '/' || a.wait_event || ' held by ' || CASE WHEN $1 = ANY(pg_blocking_pids(a.pid)) THEN 'A''s open transaction' ELSE 'another backend' END
                || coalesce(' (row of ' || (SELECT string_agg(DISTINCT l.relation::regclass::text, ', ') FROM pg_locks l WHERE l.pid = a.pid AND l.locktype = 'tuple') || ')', '') AS wait
           FROM pg_stat_activity a WHERE a.datname = current_database() AND a.wait_event_type = 'Lock'`,
        [held.pid],
      );
      blockedBy = rows.map((r) => r.wait).join('; ') || 'no lock wait seen';
    }
    await held.release();
    const { status } = await write;
    return { ms: finished, status, blockedBy };
  } finally {
    await held.release().catch(() => {});
    await write?.catch(() => {});
  }
}

describe('parallel writes to different entries of one project', () => {
  beforeAll(async () => {
    t = await startTestApp();
    p = await t.project();
    await createCollection(t.database.prisma, p.id, { slug: 'posts', fields: [{ name: 'title', type: 'text' }] });
    const created = async (title: string) => {
      const r = await t.request({ method: 'POST', url: '/api/posts', headers: p.headers, body: { data: { title }, state: 'published' } });
      expect(r.status).toBe(201);
      return r.body.uuid as string;
    };
    const aUuid = await created('A');
    bUuid = await created('B');
    [{ id: aId }] = await t.database.query<{ id: number }>('SELECT id FROM entries WHERE uuid = $1', [aUuid]);
  });
  afterAll(() => t?.close());

  describe.each(writes)('$name of entry B', (w) => {
    it('is not held back by a write of entry A whose statements ran and whose commit has not begun', async () => {
      const r = await writeBWhileAHeld(w, false);
      expect(r.ms, `B waited past ${HOLD_MS} ms on ${r.blockedBy}`).not.toBeNull();
      expect(r.status).toBeLessThan(300);
    });

    it('is not held back by a write of entry A that is committing (its generation triggers ran)', async () => {
      const r = await writeBWhileAHeld(w, true);
      expect(r.ms, `B waited past ${HOLD_MS} ms on ${r.blockedBy}`).not.toBeNull();
      expect(r.status).toBeLessThan(300);
    });
  });
});
