import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../../src/rest/index.ts';
import type { RouteDef } from '../../src/rest/route.ts';
import { multipartRoutes } from '../../src/rest/asset-routes.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createWorld, type MatrixWorld } from './matrix-fixture.ts';

/**
 * A token limited to collections, on every route of the route table: a row per route says what it
 * answers when the route addresses something outside the limit (the matrix world's `posts`, its
 * webhook on every collection, its release), so a new route fails here until someone decides.
 *
 *   hidden:    404, as if it did not exist (a collection, entry, webhook outside the limit)
 *   refused:   403 (what belongs to the whole project: settings, locales, schema documents, tokens,
 *              end users, trusted documents, releases, new collections, the order of collections)
 *   reachable: not refused (assets are shared by every collection; the project's own description)
 */
type Outcome = 'hidden' | 'refused' | 'reachable';

const ROWS: Array<[RegExp, Outcome]> = [
  [/^\w+ \/api\/(:collection|collections\/:slug|bulk\/:collection)(\/|$)/, 'hidden'],
  [/^\w+ \/api\/webhooks\/:webhook/, 'hidden'],
  [/^\w+ \/api\/schedules\/:id/, 'hidden'],
  [/^POST \/api\/webhooks$/, 'refused'],
  [/^GET \/api\/webhooks$/, 'reachable'],
  [/^(POST \/api\/collections$|POST \/api\/collections\/reorder$)/, 'refused'],
  [/^GET \/api\/collections$/, 'reachable'],
  [/^\w+ \/api\/project\/(tokens|users|schema|trusted-documents|locales)/, 'refused'],
  [/^PATCH \/api\/project$/, 'refused'],
  [/^GET \/api\/project$/, 'reachable'],
  [/^\w+ \/api\/preview-tokens/, 'refused'],
  [/^\w+ \/api\/releases/, 'refused'],
  [/^\w+ \/api\/files/, 'reachable'],
  [/^GET \/api$/, 'reachable'],
];

const routeName = (r: RouteDef) => `${r.method} ${r.url}`;
const outcomeOf = (r: RouteDef): Outcome | undefined => ROWS.find(([re]) => re.test(routeName(r)))?.[1];
const protectedRoutes = allRoutes.filter((r) => r.auth !== false && r.auth !== 'enduser');

/** Bodies that pass validation, so what answers is the limit and not a 422. */
const BODIES: Record<string, unknown> = {
  'POST /api/webhooks': { name: 'Wide', url: 'http://127.0.0.1:9/wide', events: ['content.updated'], sources: ['api'] },
  'POST /api/collections': { name: 'More', slug: 'more', fields: [{ type: 'text', label: 'T', name: 't' }] },
  // A body's shape is checked before the schedule is looked up: a 422 says nothing about what exists.
  'PATCH /api/schedules/:id': { at: new Date(Date.now() + 7_200_000).toISOString() },
};

let t: TestApp;
let w: MatrixWorld;
let limited: Record<string, string>;
let scheduleId: string;

beforeAll(async () => {
  t = await startTestApp({ env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', AUTH_CACHE_MS: '60000' } });
  w = await createWorld(t);
  const owner = w.tokens['*'];
  const made = await t.request({ method: 'POST', url: '/api/collections', headers: owner, body: { name: 'Notes', slug: 'notes', fields: [{ type: 'text', label: 'Body', name: 'body' }] } });
  expect(made.status, made.text).toBe(201);
  const token = await t.request({ method: 'POST', url: '/api/project/tokens', headers: owner, body: { name: 'notes admin', abilities: ['*'], collections: ['notes'] } });
  expect(token.status, token.text).toBe(201);
  limited = { 'project-id': w.projectUuid, authorization: `Bearer ${token.body.data.token}` };
  const scheduled = await t.request({ method: 'POST', url: `/api/posts/${w.params.uuid}/schedule`, headers: owner, body: { action: 'unpublish', at: new Date(Date.now() + 86_400_000).toISOString() } });
  expect(scheduled.status, scheduled.text).toBe(201);
  scheduleId = scheduled.body.data?.id ?? scheduled.body.id;
});
afterAll(async () => {
  await t?.close();
});

function urlOf(route: RouteDef): string {
  const params = route.url.startsWith('/api/schedules/') ? { ...w.params, id: scheduleId } : w.params;
  return route.url.replace(/:(\w+)/g, (_m, name: string) => encodeURIComponent(params[name as keyof typeof params]));
}

async function call(route: RouteDef) {
  if (multipartRoutes.includes(route)) {
    return t.request({ method: route.method, url: urlOf(route), headers: { ...limited, 'content-type': 'multipart/form-data; boundary=x' }, payload: '--x--\r\n' });
  }
  const body = route.method === 'GET' ? undefined : (BODIES[routeName(route)] ?? {});
  return t.request({ method: route.method, url: urlOf(route), headers: limited, body });
}

describe('a token limited to collections, on every route', () => {
  it('has a row for every route of the table', () => {
    expect(protectedRoutes.filter((r) => !outcomeOf(r)).map(routeName)).toEqual([]);
  });

  it.each(protectedRoutes.map((r) => [routeName(r), r] as const))('%s', async (_name, route) => {
    const res = await call(route);
    const outcome = outcomeOf(route);
    if (outcome === 'hidden') expect(res.status, res.text).toBe(404);
    else if (outcome === 'refused') expect(res.status, res.text).toBe(403);
    else expect([401, 403].includes(res.status) || res.status >= 500, `${res.status} ${res.text}`).toBe(false);
  });

  it('lists only what lies inside the limit: the model, the webhooks', async () => {
    const model = await t.request({ method: 'GET', url: '/api/collections', headers: limited });
    expect(model.body.map((c: { slug: string }) => c.slug)).toEqual(['notes']);
    const hooks = await t.request({ method: 'GET', url: '/api/webhooks', headers: limited });
    expect(hooks.status).toBe(200);
    expect(hooks.body).toEqual([]);
  });

  it('the same rules answer on GraphQL', async () => {
    const hooks = await t.graphql('{ webhooks { uuid } }', undefined, limited);
    expect(hooks.body.errors, JSON.stringify(hooks.body)).toBeUndefined();
    expect(hooks.body.data.webhooks).toEqual([]);
    const wide = await t.graphql('mutation { createWebhook(input: { name: "W", url: "http://127.0.0.1:9/w", events: ["content.updated"], sources: ["api"] }) { uuid } }', undefined, limited);
    expect(wide.body.errors?.[0]?.extensions?.code, JSON.stringify(wide.body)).toBe('FORBIDDEN');
  });
});

describe('inside the limit', () => {
  const as = (method: string, url: string, body?: unknown, headers = limited) => t.request({ method, url, headers, body });
  const hook = (extra: Record<string, unknown>) => ({ name: 'Notes hook', url: 'http://127.0.0.1:9/notes', events: ['content.updated'], sources: ['api'], ...extra });
  let notesId: number;
  let postsId: number;

  beforeAll(async () => {
    const model = (await as('GET', '/api/collections', undefined, w.tokens['*'])).body as Array<{ id: number; slug: string }>;
    notesId = model.find((c) => c.slug === 'notes')!.id;
    postsId = model.find((c) => c.slug === 'posts')!.id;
  });

  it('manages webhooks of its collections, and cannot widen them', async () => {
    const made = await as('POST', '/api/webhooks', hook({ collection_ids: [notesId] }));
    expect(made.status, made.text).toBe(201);
    expect((await as('GET', '/api/webhooks')).body.map((h: { uuid: string }) => h.uuid)).toEqual([made.body.uuid]);
    expect((await as('GET', `/api/webhooks/${made.body.uuid}`)).status).toBe(200);
    for (const wider of [{ collection_ids: [notesId, postsId] }, { collection_ids: [] }, { collection_ids: [notesId], events: ['release.published'] }, { collection_ids: [notesId], events: ['auth.signup.success'] }]) {
      expect((await as('PUT', `/api/webhooks/${made.body.uuid}`, hook(wider))).status, JSON.stringify(wider)).toBe(403);
      expect((await as('POST', '/api/webhooks', hook(wider))).status, JSON.stringify(wider)).toBe(403);
    }
    // Nothing was widened.
    expect((await as('GET', `/api/webhooks/${made.body.uuid}`, undefined, w.tokens['*'])).body.collections.map((c: { slug: string }) => c.slug)).toEqual(['notes']);
    // Widened by an unlimited admin, it leaves the limited token's sight.
    expect((await as('PUT', `/api/webhooks/${made.body.uuid}`, hook({ collection_ids: [notesId, postsId] }), w.tokens['*'])).status).toBe(200);
    expect((await as('GET', `/api/webhooks/${made.body.uuid}`)).status).toBe(404);
    expect((await as('GET', '/api/webhooks')).body).toEqual([]);
  });

  it('reads only log rows that name its collections', async () => {
    const made = await as('POST', '/api/webhooks', hook({ collection_ids: [notesId] }));
    const db = t.database.prisma;
    const id = (await db.webhook.findUniqueOrThrow({ where: { uuid: made.body.uuid } })).id;
    const row = (slug: string, n: number) => ({
      webhookId: id,
      deliveryId: `00000000-0000-4000-8000-00000000010${n}`,
      attempt: 1,
      action: 'content.updated',
      url: 'http://127.0.0.1:9/notes',
      status: '200',
      request: { method: 'POST', headers: {}, body: { event: 'content.updated', collection: { id: 1, uuid: 'x', slug } }, body_truncated: false },
      response: { status: 200, body: '', body_truncated: false },
    });
    await db.webhookLog.createMany({ data: [row('notes', 1), row('posts', 2)] });
    const mine = await as('GET', `/api/webhooks/${made.body.uuid}/logs`);
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.data.map((r: { request: { body: { collection: { slug: string } } } }) => r.request.body.collection.slug)).toEqual(['notes']);
    expect(mine.body.total).toBe(1);
    const all = await as('GET', `/api/webhooks/${made.body.uuid}/logs`, undefined, w.tokens['*']);
    expect(all.body.total).toBe(2);
  });

  it('changes its collections and fields, but nothing outside them', async () => {
    const field = await as('POST', '/api/collections/notes/fields', { type: 'text', label: 'Extra', name: 'extra' });
    expect(field.status, field.text).toBe(201);
    const relation = await as('POST', '/api/collections/notes/fields', { type: 'relation', label: 'Post', name: 'post', options: { relation: { collection: 'posts', type: 1 } } });
    expect(relation.status, relation.text).toBe(403);
    expect((await as('PUT', '/api/collections/notes', { name: 'Notes', slug: 'memos' })).status).toBe(403);
    expect((await as('PUT', '/api/collections/notes', { name: 'Memos', slug: 'notes' })).status).toBe(200);
    // posts' relation into notes would be dropped by deleting notes: not this token's to change.
    expect((await as('POST', '/api/collections/posts/fields', { type: 'relation', label: 'Note', name: 'note', options: { relation: { collection: 'notes', type: 1 } } }, w.tokens['*'])).status).toBe(201);
    const del = await as('DELETE', '/api/collections/notes', { slug: 'notes' });
    expect(del.status, del.text).toBe(403);
    expect((await as('GET', '/api/collections/notes')).status).toBe(200);
  });

  it('a token limited to some fields of a collection cannot change its fields', async () => {
    const token = await as('POST', '/api/project/tokens', { name: 'notes body', abilities: ['*'], collections: ['notes'], fields: { notes: ['body'] } }, w.tokens['*']);
    const headers = { 'project-id': w.projectUuid, authorization: `Bearer ${token.body.data.token}` };
    expect((await as('POST', '/api/collections/notes/fields', { type: 'text', label: 'More', name: 'more' }, headers)).status).toBe(403);
    expect((await as('PUT', '/api/collections/notes', { name: 'N', slug: 'notes' }, headers)).status).toBe(403);
    expect((await as('POST', '/api/webhooks', hook({ collection_ids: [notesId] }), headers)).status).toBe(403);
  });
});
