import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRace, raceWorld, type Race, type RaceWorld, type Res } from './race-world.ts';

/**
 * N identical concurrent writes on one asset, project user, session, API key, webhook, collection,
 * field or project setting answer as the same requests sent one after another would.
 */

let w: RaceWorld;
beforeAll(async () => {
  w = await raceWorld();
});
afterAll(() => w?.t.close());

const races: Race[] = [
  {
    family: 'assets',
    name: 'DELETE /api/files/{id}?force=1',
    outcome: 'one',
    setup: async () => {
      const uuid = await w.asset();
      return { fire: () => w.req('DELETE', `/api/files/${uuid}?force=1`), hold: ['SELECT 1 FROM assets WHERE uuid = $1 FOR UPDATE', [uuid]] };
    },
  },
  {
    family: 'assets',
    name: 'DELETE /api/files/{id}',
    outcome: 'one',
    setup: async () => {
      const uuid = await w.asset();
      return { fire: () => w.req('DELETE', `/api/files/${uuid}`), hold: ['SELECT 1 FROM assets WHERE uuid = $1 FOR UPDATE', [uuid]] };
    },
  },
  {
    family: 'users',
    name: 'DELETE /api/project/users/{uuid}',
    outcome: 'one',
    setup: async () => {
      const { uuid } = await w.endUser();
      return { fire: () => w.req('DELETE', `/api/project/users/${uuid}`), hold: w.userRow(uuid) };
    },
  },
  {
    family: 'users',
    name: 'PATCH /api/project/users/{uuid}',
    outcome: 'all',
    setup: async () => {
      const { uuid } = await w.endUser();
      return { fire: () => w.req('PATCH', `/api/project/users/${uuid}`, { disabled: true }), hold: w.userRow(uuid) };
    },
  },
  {
    family: 'users',
    name: 'POST /api/auth/logout (one token)',
    outcome: 'one',
    events: 1,
    setup: async () => {
      const u = await w.endUser();
      return { fire: () => w.asUser(u.access, 'POST', 'logout'), hold: w.sessionRows(u.uuid), events: () => w.authEventCount(u.uuid, 'auth.logout.success') };
    },
  },
  {
    family: 'users',
    name: 'POST /api/auth/logout-all (one token)',
    outcome: 'one',
    events: 1,
    setup: async () => {
      const u = await w.endUser();
      return { fire: () => w.asUser(u.access, 'POST', 'logout-all'), hold: w.sessionRows(u.uuid), events: () => w.authEventCount(u.uuid, 'auth.logout_all.success') };
    },
  },
  {
    family: 'users',
    name: 'POST /api/auth/api-keys/{id}/revoke (revoked once)',
    outcome: 'all',
    setup: async () => {
      const u = await w.endUser();
      const key = await w.asUser(u.access, 'POST', 'api-keys', { name: 'race' });
      expect(key.status, key.text).toBe(201);
      const answers: Res[] = [];
      return {
        fire: async () => {
          const res = await w.asUser(u.access, 'POST', `api-keys/${key.body.uuid}/revoke`);
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
      const uuid = await w.webhook();
      return { fire: () => w.req('DELETE', `/api/webhooks/${uuid}`), hold: w.webhookRow(uuid) };
    },
  },
  {
    family: 'webhooks',
    name: 'PUT /api/webhooks/{uuid} (with collection_ids)',
    outcome: 'all',
    setup: async () => {
      const uuid = await w.webhook();
      const [posts] = await w.t.database.query<{ id: number }>("SELECT id FROM collections WHERE slug = 'posts' AND project_id = $1", [w.c.p.id]);
      const body = { name: 'renamed', url: 'http://127.0.0.1:9/hook', events: ['content.updated'], sources: ['api'], collection_ids: [posts.id] };
      return { fire: () => w.req('PUT', `/api/webhooks/${uuid}`, body), hold: w.webhookRow(uuid) };
    },
  },
  {
    family: 'collections',
    name: 'DELETE /api/collections/{slug}',
    outcome: 'one',
    setup: async () => {
      const slug = await w.collection();
      return { fire: () => w.req('DELETE', `/api/collections/${slug}`, { slug }), hold: w.projectRow() };
    },
  },
  {
    family: 'collections',
    name: 'POST /api/collections (one slug)',
    outcome: 'one',
    setup: async () => {
      const slug = `racenew${Math.random().toString(36).slice(2, 8)}`;
      return { fire: () => w.req('POST', '/api/collections', { name: slug, slug, fields: [] }), hold: w.projectRow() };
    },
  },
  {
    family: 'fields',
    name: 'DELETE /api/collections/{slug}/fields/{uuid}',
    outcome: 'one',
    setup: async () => {
      const slug = await w.collection();
      const uuid = await w.field(slug);
      return { fire: () => w.req('DELETE', `/api/collections/${slug}/fields/${uuid}`), hold: w.projectRow() };
    },
  },
  {
    family: 'fields',
    name: 'POST /api/collections/{slug}/fields (one name)',
    outcome: 'one',
    setup: async () => {
      const slug = await w.collection();
      return { fire: () => w.req('POST', `/api/collections/${slug}/fields`, { type: 'text', label: 'Extra', name: 'extra' }), hold: w.projectRow() };
    },
  },
  {
    family: 'project',
    name: 'POST /api/project/locales (idempotent: added once)',
    outcome: 'all',
    setup: async () => ({
      fire: () => w.req('POST', '/api/project/locales', { locale: 'es' }),
      hold: w.projectRow(),
      after: async () => {
        const [row] = await w.t.database.query<{ locales: string[] }>('SELECT locales FROM projects WHERE uuid = $1', [w.c.p.uuid]);
        expect(row.locales.filter((l) => l === 'es')).toEqual(['es']);
      },
    }),
  },
  {
    family: 'project',
    name: 'PUT /api/project/trusted-documents (idempotent: each document once)',
    outcome: 'all',
    setup: async () => ({
      fire: () => w.req('PUT', '/api/project/trusted-documents', { documents: ['{ project { uuid } }'] }),
      hold: w.projectRow(),
      after: async () => {
        const [row] = await w.t.database.query<{ n: number }>('SELECT count(*)::int AS n FROM trusted_documents WHERE project_id = $1', [w.c.p.id]);
        expect(row.n).toBe(1);
      },
    }),
  },
  {
    family: 'project',
    name: 'DELETE /api/project/locales/{locale}',
    outcome: 'one',
    setup: async () => {
      expect((await w.req('POST', '/api/project/locales', { locale: 'de' })).status).toBe(200);
      return { fire: () => w.req('DELETE', '/api/project/locales/de'), hold: w.projectRow() };
    },
  },
];

describe('N identical concurrent admin writes answer as if sent one after another', () => {
  it.each(races.map((r) => [`${r.family}: ${r.name}`, r] as const))('%s', (_label, r) => expectRace(w, r));
});
