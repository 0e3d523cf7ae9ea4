import pg from 'pg';
import { expect } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { contentProject } from '../entries/helpers.ts';
import { upload, PNG } from '../assets/helpers.ts';

/**
 * The world of the concurrency tests (concurrent-*.test.ts): N identical requests at once on one
 * resource, through the whole HTTP pipeline against PostgreSQL, must answer as the same requests
 * sent one after another would (docs/foundation.md, "Concurrent writes on one resource").
 *
 * To make a race certain rather than likely, each case names the lock its requests contend for (a
 * row `FOR UPDATE`, or the write-scope advisory lock): a separate connection takes it, the requests
 * are injected together (the app's pool has 5 connections), and it is released only once all of them
 * wait on a lock in PostgreSQL. Every request has then read what it reads before writing: the
 * interleaving that answered `200 500 500 500` to force deletes and wrote one `content.trashed` per
 * soft delete.
 */

export const N = 5;

export type Res = Awaited<ReturnType<TestApp['request']>>;
/** A statement taking the lock the requests contend for, with its parameters. */
export type Hold = [sql: string, params: unknown[]];

export interface Setup {
  fire: () => Promise<Res>;
  hold: Hold;
  /** Domain events the N requests wrote, counted after they all answered. */
  events?: () => Promise<number>;
  /** The end state one request would have left. */
  after?: () => Promise<void>;
}

export interface Race {
  family: string;
  name: string;
  setup: () => Promise<Setup>;
  /** `one`: one success, the rest 4xx (404/409/422, or 401 for a session). `all`: every request succeeds. */
  outcome: 'one' | 'all';
  /** Domain events written by the N requests together. */
  events?: number;
}

export const ok = (status: number) => status >= 200 && status < 300;

export type RaceWorld = Awaited<ReturnType<typeof raceWorld>>;

/** An app with a project, its collections, and makers of fresh resources with the locks they take. */
export async function raceWorld() {
  const t = await startTestApp({
    env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', AUTH_RATE_PER_MINUTE_ADDRESS: '100000', AUTH_RATE_PER_MINUTE_ACCOUNT: '100000' },
  });
  const c = await contentProject(t, { locales: ['en', 'fr'] });
  await c.collection('posts', [{ name: 'title', type: 'text' }]);
  await c.collection('codes', [{ name: 'code', type: 'text', validations: { unique: { status: true } } }]);
  await c.collection('home', [{ name: 'headline', type: 'text' }], { isSingleton: true });

  const req = (method: string, url: string, body?: unknown) => c.req(method, url, body);

  const entryRow = (uuid: string): Hold => ['SELECT 1 FROM entries WHERE uuid = $1 FOR UPDATE', [uuid]];
  const entryRows = (uuids: string[]): Hold => ['SELECT 1 FROM entries WHERE uuid = ANY($1::uuid[]) FOR UPDATE', [uuids]];
  /** Creates that must see each other (unique values, singletons) serialise on this lock per collection and locale. */
  const writeScope = (slug: string, locale = 'en'): Hold => [
    'SELECT pg_advisory_xact_lock((SELECT id FROM collections WHERE slug = $1 AND project_id = $2), hashtext($3))',
    [slug, c.p.id, locale],
  ];
  const projectRow = (): Hold => ['SELECT 1 FROM projects WHERE uuid = $1 FOR UPDATE', [c.p.uuid]];

  async function entry(extra: Record<string, unknown> = {}): Promise<string> {
    const res = await c.create('posts', { data: { title: 'race' }, ...extra });
    expect(res.status, res.text).toBe(201);
    return res.body.uuid as string;
  }
  async function trashed(): Promise<string> {
    const uuid = await entry();
    expect((await c.del('posts', uuid)).status).toBe(200);
    return uuid;
  }
  async function eventCount(uuid: string, event: string): Promise<number> {
    const [row] = await t.database.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox_events WHERE entry_uuid = $1 AND event = $2', [uuid, event]);
    return row.n;
  }
  async function authEventCount(userUuid: string, event: string): Promise<number> {
    const [row] = await t.database.query<{ n: number }>("SELECT count(*)::int AS n FROM outbox_events WHERE event = $2 AND payload -> 'user' ->> 'uuid' = $1", [userUuid, event]);
    return row.n;
  }
  async function asset(): Promise<string> {
    const res = await upload(t, c.p.headers, { filename: 'race.png', contentType: 'image/png', content: PNG });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.uuid as string;
  }
  let userSeq = 0;
  async function endUser(): Promise<{ uuid: string; access: string }> {
    const res = await t.request({
      method: 'POST',
      url: '/api/auth/signup',
      headers: { 'project-id': c.p.uuid },
      body: { email: `race${++userSeq}@example.com`, password: 'correct horse battery' },
    });
    expect(res.status, res.text).toBe(201);
    return { uuid: res.body.user.uuid as string, access: res.body.access_token as string };
  }
  const asUser = (access: string, method: string, path: string, body?: unknown) =>
    t.request({ method, url: `/api/auth/${path}`, headers: { 'project-id': c.p.uuid, authorization: `Bearer ${access}` }, body });
  const userRow = (uuid: string): Hold => ['SELECT 1 FROM project_users WHERE uuid = $1 FOR UPDATE', [uuid]];
  const sessionRows = (uuid: string): Hold => ['SELECT 1 FROM user_sessions WHERE user_id = (SELECT id FROM project_users WHERE uuid = $1) FOR UPDATE', [uuid]];
  async function webhook(): Promise<string> {
    const res = await req('POST', '/api/webhooks', { name: 'race', url: 'http://127.0.0.1:9/hook', events: ['content.created'], sources: ['api'] });
    expect(res.status, res.text).toBe(201);
    return res.body.uuid as string;
  }
  const webhookRow = (uuid: string): Hold => ['SELECT 1 FROM webhooks WHERE uuid = $1 FOR UPDATE', [uuid]];
  let collectionSeq = 0;
  async function collection(): Promise<string> {
    const slug = `race${++collectionSeq}`;
    const res = await req('POST', '/api/collections', { name: slug, slug, fields: [{ type: 'text', label: 'Title', name: 'title' }] });
    expect(res.status, res.text).toBe(201);
    return slug;
  }
  async function field(slug: string): Promise<string> {
    const res = await req('POST', `/api/collections/${slug}/fields`, { type: 'text', label: 'Extra', name: 'extra' });
    expect(res.status, res.text).toBe(201);
    return res.body.uuid as string;
  }

  /**
   * Locks the contended row on a connection of its own, fires the waves of requests one after another
   * (each once the ones before it wait on a lock in PostgreSQL, so PostgreSQL serves them in that
   * order), releases once all wait, and returns the answers in the order fired.
   */
  async function raceInWaves(waves: Array<Array<() => Promise<Res>>>, [sql, params]: Hold): Promise<Res[]> {
    const holder = new pg.Client({ connectionString: t.databaseUrl });
    await holder.connect();
    const waitingOnLocks = async () => {
      // Activity statistics are a snapshot taken once per transaction: drop it to see the present.
      await holder.query('SELECT pg_stat_clear_snapshot()');
      const { rows } = await holder.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
      return rows[0].n;
    };
    try {
      await holder.query('BEGIN');
      const locked = await holder.query(sql, params);
      expect(locked.rowCount).toBeGreaterThan(0);
      const fired: Array<Promise<Res>> = [];
      let waiting = 0;
      for (const wave of waves) {
        fired.push(...wave.map((fire) => fire()));
        for (let i = 0; i < 500 && waiting < fired.length; i++) {
          await new Promise((r) => setTimeout(r, 10));
          waiting = await waitingOnLocks();
        }
      }
      await holder.query('COMMIT');
      const done = await Promise.all(fired);
      const answered = done.map((a) => `${a.status} ${a.text.slice(0, 200)}`).join('\n');
      expect(waiting, `requests waiting on the held row together; they answered\n${answered}`).toBe(fired.length);
      return done;
    } finally {
      await holder.end();
    }
  }

  /** N identical requests at once. */
  const race = (fire: () => Promise<Res>, hold: Hold) => raceInWaves([Array.from({ length: N }, () => fire)], hold);

  return { t, c, req, entryRow, entryRows, writeScope, projectRow, entry, trashed, eventCount, authEventCount, asset, endUser, asUser, userRow, sessionRows, webhook, webhookRow, collection, field, raceInWaves, race };
}

/** Runs one row of a REST race table: statuses, events and end state. */
export async function expectRace(w: RaceWorld, r: Race): Promise<void> {
  const { fire, hold, events, after } = await r.setup();
  const answers = await w.race(fire, hold);
  const statuses = answers.map((a) => a.status);
  const detail = answers.map((a) => `${a.status} ${a.text.slice(0, 160)}`).join('\n');
  expect(statuses.filter((s) => s >= 500), detail).toEqual([]);
  if (r.outcome === 'one') {
    expect(statuses.filter(ok), detail).toHaveLength(1);
    // The losers say why: gone (404), no longer in that state (409), taken (422 naming the key),
    // or, for a session, already ended (401).
    for (const a of answers.filter((x) => !ok(x.status))) {
      expect([401, 404, 409, 422], detail).toContain(a.status);
      expect(typeof a.body?.message, detail).toBe('string');
    }
  } else {
    expect(statuses.filter(ok), detail).toHaveLength(N);
  }
  if (r.events !== undefined) expect(await events!()).toBe(r.events);
  await after?.();
}
