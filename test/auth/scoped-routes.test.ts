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
