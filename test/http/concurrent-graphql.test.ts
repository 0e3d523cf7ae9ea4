import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { N, ok, raceWorld, type Hold, type RaceWorld, type Res, type Setup } from './race-world.ts';

/**
 * The GraphQL mutations of the same operations race the same way, and a write queued behind a
 * delete of its target is told the target is gone (404), never a 500.
 */

let w: RaceWorld;
beforeAll(async () => {
  w = await raceWorld();
});
afterAll(() => w?.t.close());

describe('the same through GraphQL (the mutations call the same operations)', () => {
  const gql = (query: string, variables: Record<string, unknown>) => () =>
    w.t.request({ method: 'POST', url: '/graphql', headers: w.c.p.headers, body: { query, variables } });

  const mutations: Array<{ name: string; events?: number; setup: () => Promise<Setup> }> = [
    {
      name: 'deleteEntry(force: true)',
      events: 1,
      setup: async () => {
        const u = await w.entry();
        const fire = gql('mutation($u: String!) { deleteEntry(collection: "posts", uuid: $u, force: true) { message } }', { u });
        return { fire, hold: w.entryRow(u), events: () => w.eventCount(u, 'content.deleted') };
      },
    },
    {
      name: 'deleteEntry',
      events: 1,
      setup: async () => {
        const u = await w.entry();
        return { fire: gql('mutation($u: String!) { deleteEntry(collection: "posts", uuid: $u) { message } }', { u }), hold: w.entryRow(u), events: () => w.eventCount(u, 'content.trashed') };
      },
    },
    {
      name: 'restoreEntry',
      events: 1,
      setup: async () => {
        const u = await w.trashed();
        return { fire: gql('mutation($u: String!) { restoreEntry(collection: "posts", uuid: $u) { uuid } }', { u }), hold: w.entryRow(u), events: () => w.eventCount(u, 'content.restored') };
      },
    },
    {
      name: 'deleteProjectUser',
      setup: async () => {
        const { uuid } = await w.endUser();
        return { fire: gql('mutation($u: String!) { deleteProjectUser(uuid: $u) }', { u: uuid }), hold: w.userRow(uuid) };
      },
    },
    {
      name: 'deleteWebhook',
      setup: async () => {
        const uuid = await w.webhook();
        return { fire: gql('mutation($u: String!) { deleteWebhook(uuid: $u) }', { u: uuid }), hold: w.webhookRow(uuid) };
      },
    },
    {
      name: 'deleteCollection',
      setup: async () => {
        const s = await w.collection();
        return { fire: gql('mutation($s: String!) { deleteCollection(slug: $s, confirmSlug: $s) }', { s }), hold: w.projectRow() };
      },
    },
    {
      name: 'deleteField',
      setup: async () => {
        const s = await w.collection();
        const u = await w.field(s);
        return { fire: gql('mutation($s: String!, $u: String!) { deleteField(collection: $s, uuid: $u) }', { s, u }), hold: w.projectRow() };
      },
    },
    {
      name: 'removeProjectLocale',
      setup: async () => {
        expect((await w.req('POST', '/api/project/locales', { locale: 'it' })).status).toBe(200);
        return { fire: gql('mutation { removeProjectLocale(locale: "it") { uuid } }', {}), hold: w.projectRow() };
      },
    },
  ];

  it.each(mutations.map((m) => [m.name, m] as const))('%s: one success, the rest NOT_FOUND or CONFLICT', async (_label, m) => {
    const { fire, hold, events } = await m.setup();
    const answers = await w.race(fire, hold);
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
        const { uuid } = await w.endUser();
        return { remove: () => w.req('DELETE', `/api/project/users/${uuid}`), write: () => w.req('PATCH', `/api/project/users/${uuid}`, { display_name: 'late' }), hold: w.userRow(uuid) };
      },
    },
    {
      name: 'PUT /api/webhooks/{uuid} behind its DELETE',
      setup: async () => {
        const uuid = await w.webhook();
        const body = { name: 'late', url: 'http://127.0.0.1:9/hook', events: ['content.updated'], sources: ['api'] };
        return { remove: () => w.req('DELETE', `/api/webhooks/${uuid}`), write: () => w.req('PUT', `/api/webhooks/${uuid}`, body), hold: w.webhookRow(uuid) };
      },
    },
    {
      name: 'PATCH /api/{collection}/{uuid} behind its force DELETE',
      setup: async () => {
        const uuid = await w.entry();
        return { remove: () => w.c.del('posts', uuid, '?force=1'), write: () => w.c.patch('posts', uuid, { data: { title: 'late' } }), hold: w.entryRow(uuid) };
      },
    },
    {
      name: 'POST /api/{collection}/{uuid}/publish behind its force DELETE',
      setup: async () => {
        const uuid = await w.entry();
        return { remove: () => w.c.del('posts', uuid, '?force=1'), write: () => w.req('POST', `/api/posts/${uuid}/publish`), hold: w.entryRow(uuid) };
      },
    },
    {
      name: 'POST /api/{collection}/{uuid}/restore behind its force DELETE',
      setup: async () => {
        const uuid = await w.trashed();
        return { remove: () => w.c.del('posts', uuid, '?force=1'), write: () => w.req('POST', `/api/posts/${uuid}/restore`), hold: w.entryRow(uuid) };
      },
    },
  ];

  it.each(cases.map((x) => [x.name, x] as const))('%s', async (_label, x) => {
    const { remove, write, hold } = await x.setup();
    const [removed, ...writes] = await w.raceInWaves([[remove], Array.from({ length: N - 1 }, () => write)], hold);
    const detail = [removed, ...writes].map((a) => `${a.status} ${a.text.slice(0, 160)}`).join('\n');
    expect(ok(removed.status), detail).toBe(true);
    expect(writes.map((w) => w.status), detail).toEqual(Array(N - 1).fill(404));
  });
});
