import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { contentProject } from '../content/helpers.ts';
import { upload, PNG } from '../assets/helpers.ts';

/**
 * N identical requests at once on one resource, through the whole HTTP pipeline against PostgreSQL:
 * they must answer as the same requests sent one after another would. A write that changes the
 * resource once (delete, trash, restore, unpublish, logout) has one success and 404/409 (401 for a
 * session already ended) for the rest, writes one domain event and never answers 5xx; a write whose
 * every call is a change of its own (publish, revert: a version each) succeeds N times with N events;
 * an idempotent write succeeds every time and leaves what one request would.
 *
 * To make the race certain rather than likely, each case names the row its requests contend for: a
 * separate connection locks it, the N requests are injected together (Promise.all; the app's pool
 * has 5 connections), and the lock is released only once all N wait on a lock in PostgreSQL. Every
 * request has then read what it reads before writing: the interleaving that answered
 * `200 500 500 500` to force deletes and wrote one `content.trashed` per soft delete.
 */

const N = 5;

type Res = Awaited<ReturnType<TestApp['request']>>;
/** A `SELECT … FOR UPDATE` of the contended row(s), with its parameters. */
type Hold = [sql: string, params: unknown[]];

interface Setup {
  fire: () => Promise<Res>;
  hold: Hold;
  /** Domain events the N requests wrote, counted after they all answered. */
  events?: () => Promise<number>;
  /** The end state one request would have left. */
  after?: () => Promise<void>;
}

interface Race {
  family: string;
  name: string;
  setup: () => Promise<Setup>;
  /** `one`: one success, the rest 4xx (404/409/422, or 401 for a session). `all`: every request succeeds. */
  outcome: 'one' | 'all';
  /** Domain events written by the N requests together. */
  events?: number;
}

let t: TestApp;
let c: Awaited<ReturnType<typeof contentProject>>;

beforeAll(async () => {
  t = await startTestApp({
    env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', AUTH_RATE_PER_MINUTE_ADDRESS: '100000', AUTH_RATE_PER_MINUTE_ACCOUNT: '100000' },
  });
  c = await contentProject(t, { locales: ['en', 'fr'] });
  await c.collection('posts', [{ name: 'title', type: 'text' }]);
  await c.collection('codes', [{ name: 'code', type: 'text', validations: { unique: { status: true } } }]);
  await c.collection('home', [{ name: 'headline', type: 'text' }], { isSingleton: true });
});
afterAll(() => t?.close());

const req = (method: string, url: string, body?: unknown) => c.req(method, url, body);
const ok = (status: number) => status >= 200 && status < 300;

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

const races: Race[] = [
  {
    family: 'entries',
    name: 'DELETE /api/{collection}/{uuid}?force=1',
    outcome: 'one',
    events: 1,
    setup: async () => {
      const uuid = await entry();
      return { fire: () => c.del('posts', uuid, '?force=1'), hold: entryRow(uuid), events: () => eventCount(uuid, 'content.deleted') };
    },
  },
  {
    family: 'entries',
    name: 'DELETE /api/{collection}/{uuid} (to the trash)',
    outcome: 'one',
    events: 1,
    setup: async () => {
      const uuid = await entry();
      return {
        fire: () => c.del('posts', uuid),
        hold: entryRow(uuid),
        events: () => eventCount(uuid, 'content.trashed'),
        // deleted_at is written once: the time the event carries is the row's.
        after: async () => {
          const [row] = await t.database.query<{ deleted_at: Date }>('SELECT deleted_at FROM entries WHERE uuid = $1', [uuid]);
          const [event] = await t.database.query<{ created_at: Date }>("SELECT created_at FROM outbox_events WHERE entry_uuid = $1 AND event = 'content.trashed'", [uuid]);
          expect(Math.abs(row.deleted_at.getTime() - event.created_at.getTime())).toBeLessThan(1000);
        },
      };
    },
  },
  {
    family: 'entries',
    name: 'POST /api/{collection} with a unique value',
    outcome: 'one',
    events: 1,
    setup: async () => {
      const code = `code-${Math.random().toString(36).slice(2)}`;
      const events = async () =>
        (await t.database.query<{ n: number }>("SELECT count(*)::int AS n FROM outbox_events WHERE event = 'content.created' AND payload -> 'content_entry' -> 'fields' ->> 'code' = $1", [code]))[0].n;
      return { fire: () => req('POST', '/api/codes', { data: { code } }), hold: writeScope('codes'), events };
    },
  },
  {
    family: 'entries',
    name: 'POST /api/{collection} of a singleton',
    outcome: 'one',
    setup: async () => ({
      fire: () => req('POST', '/api/home', { data: { headline: 'only one' } }),
      hold: writeScope('home'),
      after: async () => expect((await t.database.query("SELECT 1 FROM entries e JOIN collections c ON c.id = e.collection_id WHERE c.slug = 'home' AND c.project_id = $1", [c.p.id])).length).toBe(1),
    }),
  },
  {
    family: 'entries',
    name: 'DELETE /api/bulk/{collection}/entries (each entry trashed once)',
    outcome: 'all',
    events: 2,
    setup: async () => {
      const uuids = [await entry(), await entry()];
      const events = async () => (await eventCount(uuids[0], 'content.trashed')) + (await eventCount(uuids[1], 'content.trashed'));
      return { fire: () => req('DELETE', '/api/bulk/posts/entries', { uuids }), hold: entryRows(uuids), events };
    },
  },
  {
    family: 'entries',
    name: 'POST /api/{collection}/{uuid}/link-translation',
    outcome: 'all',
    setup: async () => {
      const en = await entry();
      const fr = await entry({ locale: 'fr' });
      return { fire: () => req('POST', `/api/posts/${en}/link-translation`, { translation_entry_uuid: fr }), hold: entryRow(en) };
    },
  },
  {
    family: 'trash',
    name: 'POST /api/{collection}/{uuid}/restore',
    outcome: 'one',
    events: 1,
    setup: async () => {
      const uuid = await trashed();
      return { fire: () => req('POST', `/api/posts/${uuid}/restore`), hold: entryRow(uuid), events: () => eventCount(uuid, 'content.restored') };
    },
  },
  {
    family: 'trash',
    name: 'DELETE /api/{collection}/{uuid}?force=1 of a trashed entry',
    outcome: 'one',
    events: 1,
    setup: async () => {
      const uuid = await trashed();
      return { fire: () => c.del('posts', uuid, '?force=1'), hold: entryRow(uuid), events: () => eventCount(uuid, 'content.deleted') };
    },
  },
  {
    family: 'trash',
    name: 'DELETE /api/{collection}/trash (emptying is idempotent; each entry deleted once)',
    outcome: 'all',
    events: 2,
    setup: async () => {
      const slug = await collection();
      const uuids: string[] = [];
      for (let i = 0; i < 2; i++) {
        const made = await req('POST', `/api/${slug}`, { data: { title: `t${i}` } });
        uuids.push(made.body.uuid);
        expect((await req('DELETE', `/api/${slug}/${made.body.uuid}`)).status).toBe(200);
      }
      const events = async () => (await eventCount(uuids[0], 'content.deleted')) + (await eventCount(uuids[1], 'content.deleted'));
      return { fire: () => req('DELETE', `/api/${slug}/trash`), hold: entryRows(uuids), events };
    },
  },
  {
    family: 'versions',
    name: 'POST /api/{collection}/{uuid}/unpublish (idempotent; one change)',
    outcome: 'all',
    events: 1,
    setup: async () => {
      const uuid = await entry({ state: 'published' });
      return { fire: () => req('POST', `/api/posts/${uuid}/unpublish`), hold: entryRow(uuid), events: () => eventCount(uuid, 'content.unpublished') };
    },
  },
  {
    family: 'versions',
    name: 'POST /api/{collection}/{uuid}/publish (a version each)',
    outcome: 'all',
    events: N,
    setup: async () => {
      const uuid = await entry();
      return { fire: () => req('POST', `/api/posts/${uuid}/publish`), hold: entryRow(uuid), events: () => eventCount(uuid, 'content.published') };
    },
  },
  {
    family: 'versions',
    name: 'POST /api/{collection}/{uuid}/versions/1/revert (a version each)',
    outcome: 'all',
    events: N + 1,
    setup: async () => {
      const uuid = await entry({ state: 'published' });
      return { fire: () => req('POST', `/api/posts/${uuid}/versions/1/revert`), hold: entryRow(uuid), events: () => eventCount(uuid, 'content.published') };
    },
  },
  {
    family: 'versions',
    name: 'PATCH /api/{collection}/{uuid}/versions/1',
    outcome: 'all',
    setup: async () => {
      const uuid = await entry({ state: 'published' });
      const hold: Hold = ['SELECT 1 FROM entry_versions v JOIN entries e ON e.id = v.entry_id WHERE e.uuid = $1 FOR UPDATE OF v', [uuid]];
      return { fire: () => req('PATCH', `/api/posts/${uuid}/versions/1`, { label: 'race' }), hold };
    },
  },
  {
    family: 'assets',
    name: 'DELETE /api/files/{id}?force=1',
    outcome: 'one',
    setup: async () => {
      const uuid = await asset();
      return { fire: () => req('DELETE', `/api/files/${uuid}?force=1`), hold: ['SELECT 1 FROM assets WHERE uuid = $1 FOR UPDATE', [uuid]] };
    },
  },
  {
    family: 'assets',
    name: 'DELETE /api/files/{id}',
    outcome: 'one',
    setup: async () => {
      const uuid = await asset();
      return { fire: () => req('DELETE', `/api/files/${uuid}`), hold: ['SELECT 1 FROM assets WHERE uuid = $1 FOR UPDATE', [uuid]] };
    },
  },
  {
    family: 'users',
    name: 'DELETE /api/project/users/{uuid}',
    outcome: 'one',
    setup: async () => {
      const { uuid } = await endUser();
      return { fire: () => req('DELETE', `/api/project/users/${uuid}`), hold: userRow(uuid) };
    },
  },
  {
    family: 'users',
    name: 'PATCH /api/project/users/{uuid}',
    outcome: 'all',
    setup: async () => {
      const { uuid } = await endUser();
      return { fire: () => req('PATCH', `/api/project/users/${uuid}`, { disabled: true }), hold: userRow(uuid) };
    },
  },
  {
    family: 'users',
    name: 'POST /api/auth/logout (one token)',
    outcome: 'one',
    events: 1,
    setup: async () => {
      const u = await endUser();
      return { fire: () => asUser(u.access, 'POST', 'logout'), hold: sessionRows(u.uuid), events: () => authEventCount(u.uuid, 'auth.logout.success') };
    },
  },
  {
    family: 'users',
    name: 'POST /api/auth/logout-all (one token)',
    outcome: 'one',
    events: 1,
    setup: async () => {
      const u = await endUser();
      return { fire: () => asUser(u.access, 'POST', 'logout-all'), hold: sessionRows(u.uuid), events: () => authEventCount(u.uuid, 'auth.logout_all.success') };
    },
  },
  {
    family: 'users',
    name: 'POST /api/auth/api-keys/{id}/revoke (revoked once)',
    outcome: 'all',
    setup: async () => {
      const u = await endUser();
      const key = await asUser(u.access, 'POST', 'api-keys', { name: 'race' });
      expect(key.status, key.text).toBe(201);
      const answers: Res[] = [];
      return {
        fire: async () => {
          const res = await asUser(u.access, 'POST', `api-keys/${key.body.uuid}/revoke`);
          answers.push(res);
          return res;
        },
        hold: ['SELECT 1 FROM user_api_keys WHERE uuid = $1 FOR UPDATE', [key.body.uuid]],
        // Every answer names the one time it was revoked.
        after: async () => expect(new Set(answers.map((a) => a.body?.data?.revoked_at)).size).toBe(1),
      };
    },
  },
  {
    family: 'webhooks',
    name: 'DELETE /api/webhooks/{uuid}',
    outcome: 'one',
    setup: async () => {
      const uuid = await webhook();
      return { fire: () => req('DELETE', `/api/webhooks/${uuid}`), hold: webhookRow(uuid) };
    },
  },
  {
    family: 'webhooks',
    name: 'PUT /api/webhooks/{uuid} (with collection_ids)',
    outcome: 'all',
    setup: async () => {
      const uuid = await webhook();
      const [posts] = await t.database.query<{ id: number }>("SELECT id FROM collections WHERE slug = 'posts' AND project_id = $1", [c.p.id]);
      const body = { name: 'renamed', url: 'http://127.0.0.1:9/hook', events: ['content.updated'], sources: ['api'], collection_ids: [posts.id] };
      return { fire: () => req('PUT', `/api/webhooks/${uuid}`, body), hold: webhookRow(uuid) };
    },
  },
  {
    family: 'collections',
    name: 'DELETE /api/collections/{slug}',
    outcome: 'one',
    setup: async () => {
      const slug = await collection();
      return { fire: () => req('DELETE', `/api/collections/${slug}`, { slug }), hold: projectRow() };
    },
  },
  {
    family: 'collections',
    name: 'POST /api/collections (one slug)',
    outcome: 'one',
    setup: async () => {
      const slug = `racenew${++collectionSeq}`;
      return { fire: () => req('POST', '/api/collections', { name: slug, slug, fields: [] }), hold: projectRow() };
    },
  },
  {
    family: 'fields',
    name: 'DELETE /api/collections/{slug}/fields/{uuid}',
    outcome: 'one',
    setup: async () => {
      const slug = await collection();
      const uuid = await field(slug);
      return { fire: () => req('DELETE', `/api/collections/${slug}/fields/${uuid}`), hold: projectRow() };
    },
  },
  {
    family: 'fields',
    name: 'POST /api/collections/{slug}/fields (one name)',
    outcome: 'one',
    setup: async () => {
      const slug = await collection();
      return { fire: () => req('POST', `/api/collections/${slug}/fields`, { type: 'text', label: 'Extra', name: 'extra' }), hold: projectRow() };
    },
  },
  {
    family: 'project',
    name: 'POST /api/project/locales (idempotent: added once)',
    outcome: 'all',
    setup: async () => ({
      fire: () => req('POST', '/api/project/locales', { locale: 'es' }),
      hold: projectRow(),
      after: async () => {
        const [row] = await t.database.query<{ locales: string[] }>('SELECT locales FROM projects WHERE uuid = $1', [c.p.uuid]);
        expect(row.locales.filter((l) => l === 'es')).toEqual(['es']);
      },
    }),
  },
  {
    family: 'project',
    name: 'PUT /api/project/trusted-documents (idempotent: each document once)',
    outcome: 'all',
    setup: async () => ({
      fire: () => req('PUT', '/api/project/trusted-documents', { documents: ['{ project { uuid } }'] }),
      hold: projectRow(),
      after: async () => {
        const [row] = await t.database.query<{ n: number }>('SELECT count(*)::int AS n FROM trusted_documents WHERE project_id = $1', [c.p.id]);
        expect(row.n).toBe(1);
      },
    }),
  },
  {
    family: 'project',
    name: 'DELETE /api/project/locales/{locale}',
    outcome: 'one',
    setup: async () => {
      expect((await req('POST', '/api/project/locales', { locale: 'de' })).status).toBe(200);
      return { fire: () => req('DELETE', '/api/project/locales/de'), hold: projectRow() };
    },
  },
];

describe('N identical concurrent REST writes answer as if sent one after another', () => {
  it.each(races.map((r) => [`${r.family}: ${r.name}`, r] as const))('%s', async (_label, r) => {
    const { fire, hold, events, after } = await r.setup();
    const answers = await race(fire, hold);
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
  });
});

describe('the same through GraphQL (the mutations call the same operations)', () => {
  const gql = (query: string, variables: Record<string, unknown>) => () =>
    t.request({ method: 'POST', url: '/graphql', headers: c.p.headers, body: { query, variables } });

  const mutations: Array<{ name: string; events?: number; setup: () => Promise<Setup> }> = [
    {
      name: 'deleteEntry(force: true)',
      events: 1,
      setup: async () => {
        const u = await entry();
        const fire = gql('mutation($u: String!) { deleteEntry(collection: "posts", uuid: $u, force: true) { message } }', { u });
        return { fire, hold: entryRow(u), events: () => eventCount(u, 'content.deleted') };
      },
    },
    {
      name: 'deleteEntry',
      events: 1,
      setup: async () => {
        const u = await entry();
        return { fire: gql('mutation($u: String!) { deleteEntry(collection: "posts", uuid: $u) { message } }', { u }), hold: entryRow(u), events: () => eventCount(u, 'content.trashed') };
      },
    },
    {
      name: 'restoreEntry',
      events: 1,
      setup: async () => {
        const u = await trashed();
        return { fire: gql('mutation($u: String!) { restoreEntry(collection: "posts", uuid: $u) { uuid } }', { u }), hold: entryRow(u), events: () => eventCount(u, 'content.restored') };
      },
    },
    {
      name: 'deleteProjectUser',
      setup: async () => {
        const { uuid } = await endUser();
        return { fire: gql('mutation($u: String!) { deleteProjectUser(uuid: $u) }', { u: uuid }), hold: userRow(uuid) };
      },
    },
    {
      name: 'deleteWebhook',
      setup: async () => {
        const uuid = await webhook();
        return { fire: gql('mutation($u: String!) { deleteWebhook(uuid: $u) }', { u: uuid }), hold: webhookRow(uuid) };
      },
    },
    {
      name: 'deleteCollection',
      setup: async () => {
        const s = await collection();
        return { fire: gql('mutation($s: String!) { deleteCollection(slug: $s, confirmSlug: $s) }', { s }), hold: projectRow() };
      },
    },
    {
      name: 'deleteField',
      setup: async () => {
        const s = await collection();
        const u = await field(s);
        return { fire: gql('mutation($s: String!, $u: String!) { deleteField(collection: $s, uuid: $u) }', { s, u }), hold: projectRow() };
      },
    },
    {
      name: 'removeProjectLocale',
      setup: async () => {
        expect((await req('POST', '/api/project/locales', { locale: 'it' })).status).toBe(200);
        return { fire: gql('mutation { removeProjectLocale(locale: "it") { uuid } }', {}), hold: projectRow() };
      },
    },
  ];

  it.each(mutations.map((m) => [m.name, m] as const))('%s: one success, the rest NOT_FOUND or CONFLICT', async (_label, m) => {
    const { fire, hold, events } = await m.setup();
    const answers = await race(fire, hold);
    const detail = answers.map((a) => `${a.status} ${a.text.slice(0, 200)}`).join('\n');
    const codes = answers.map((a) => (a.body?.errors ? a.body.errors[0]?.extensions?.code : 'OK'));
    expect(codes.filter((x) => x === 'OK'), detail).toHaveLength(1);
    for (const code of codes.filter((x) => x !== 'OK')) expect(['NOT_FOUND', 'CONFLICT'], detail).toContain(code);
    if (m.events !== undefined) expect(await events!()).toBe(m.events);
  });
});

describe('a write queued behind a delete of its target answers 404, never 500', () => {
  // The delete is fired first and takes the row first; the others were authorized and had read the
  // resource before it went. Operations that write by key then meet Prisma's "record not found".
  const cases: Array<{ name: string; setup: () => Promise<{ remove: () => Promise<Res>; write: () => Promise<Res>; hold: Hold }> }> = [
    {
      name: 'PATCH /api/project/users/{uuid} behind its DELETE',
      setup: async () => {
        const { uuid } = await endUser();
        return { remove: () => req('DELETE', `/api/project/users/${uuid}`), write: () => req('PATCH', `/api/project/users/${uuid}`, { display_name: 'late' }), hold: userRow(uuid) };
      },
    },
    {
      name: 'PUT /api/webhooks/{uuid} behind its DELETE',
      setup: async () => {
        const uuid = await webhook();
        const body = { name: 'late', url: 'http://127.0.0.1:9/hook', events: ['content.updated'], sources: ['api'] };
        return { remove: () => req('DELETE', `/api/webhooks/${uuid}`), write: () => req('PUT', `/api/webhooks/${uuid}`, body), hold: webhookRow(uuid) };
      },
    },
    {
      name: 'PATCH /api/{collection}/{uuid} behind its force DELETE',
      setup: async () => {
        const uuid = await entry();
        return { remove: () => c.del('posts', uuid, '?force=1'), write: () => c.patch('posts', uuid, { data: { title: 'late' } }), hold: entryRow(uuid) };
      },
    },
    {
      name: 'POST /api/{collection}/{uuid}/publish behind its force DELETE',
      setup: async () => {
        const uuid = await entry();
        return { remove: () => c.del('posts', uuid, '?force=1'), write: () => req('POST', `/api/posts/${uuid}/publish`), hold: entryRow(uuid) };
      },
    },
    {
      name: 'POST /api/{collection}/{uuid}/restore behind its force DELETE',
      setup: async () => {
        const uuid = await trashed();
        return { remove: () => c.del('posts', uuid, '?force=1'), write: () => req('POST', `/api/posts/${uuid}/restore`), hold: entryRow(uuid) };
      },
    },
  ];

  it.each(cases.map((x) => [x.name, x] as const))('%s', async (_label, x) => {
    const { remove, write, hold } = await x.setup();
    const [removed, ...writes] = await raceInWaves([[remove], Array.from({ length: N - 1 }, () => write)], hold);
    const detail = [removed, ...writes].map((a) => `${a.status} ${a.text.slice(0, 160)}`).join('\n');
    expect(ok(removed.status), detail).toBe(true);
    expect(writes.map((w) => w.status), detail).toEqual(Array(N - 1).fill(404));
  });
});
