import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { world, collection } from '../helpers/world.ts';
import { EVENT_NAMES } from '../../src/events/names.ts';

const URL_OK = 'http://127.0.0.1:9/hook';

describe('webhook administration (REST)', () => {
  let t: TestApp;
  let p: TestProject;
  let other: TestProject;
  let posts: { id: number; uuid: string; name: string; slug: string };
  let pages: { id: number; uuid: string; name: string; slug: string };
  let foreign: { id: number };
  const req = (method: string, url: string, body?: unknown, headers = p.headers) => t.request({ method, url, headers, body });
  const valid = (extra: Record<string, unknown> = {}) => ({
    name: 'Build hook',
    url: URL_OK,
    events: ['content.published', 'content.unpublished'],
    sources: ['api', 'cms'],
    ...extra,
  });

  beforeAll(async () => {
    const w = await world({ app: { env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } } });
    ({ t, p } = w);
    other = await t.project({ name: 'Other' });
    posts = await w.collection(collection('posts', [], { name: 'Posts' }));
    pages = await w.collection(collection('pages', [], { name: 'Pages' }));
    foreign = await w.collection(collection('posts', []), other);
  });
  afterAll(() => t.close());

  it('lists an empty array before any webhook exists', async () => {
    const fresh = await t.project();
    const res = await req('GET', '/api/webhooks', undefined, fresh.headers);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('creates (201) and returns the docs/webhooks.md object without the secret', async () => {
    const res = await req('POST', '/api/webhooks', valid({ description: 'Rebuild the site', secret: 's3cret!', collection_ids: [pages.id, posts.id] }));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Build hook',
      description: 'Rebuild the site',
      url: URL_OK,
      events: ['content.published', 'content.unpublished'],
      sources: ['api', 'cms'],
      payload: true,
      status: true,
      collections: [
        { id: posts.id, uuid: posts.uuid, name: 'Posts', slug: 'posts' },
        { id: pages.id, uuid: pages.uuid, name: 'Pages', slug: 'pages' },
      ],
      has_secret: true,
      consecutive_failures: 0,
      disabled_reason: null,
      disabled_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(res.text).not.toContain('s3cret!');
    const got = await req('GET', `/api/webhooks/${res.body.uuid}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    const list = await req('GET', '/api/webhooks');
    expect(list.body.map((w: { uuid: string }) => w.uuid)).toContain(res.body.uuid);
    expect(list.text).not.toContain('s3cret!');
  });

  it('PUT replaces the body, keeps the secret when omitted, replaces or removes it when sent', async () => {
    const created = (await req('POST', '/api/webhooks', valid({ secret: 'first-secret', collection_ids: [posts.id] }))).body;
    const put = await req('PUT', `/api/webhooks/${created.uuid}`, valid({ name: 'Renamed', events: ['content.created'], sources: ['cms'], payload: false }));
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'Renamed', events: ['content.created'], sources: ['cms'], payload: false, has_secret: true });
    // collection_ids omitted: links kept
    expect(put.body.collections.map((c: { id: number }) => c.id)).toEqual([posts.id]);
    let row = await t.database.prisma.webhook.findUniqueOrThrow({ where: { uuid: created.uuid } });
    expect(row.secret).toBe('first-secret');

    await req('PUT', `/api/webhooks/${created.uuid}`, valid({ secret: 'second-secret', collection_ids: [] }));
    row = await t.database.prisma.webhook.findUniqueOrThrow({ where: { uuid: created.uuid } });
    expect(row.secret).toBe('second-secret');
    expect((await req('GET', `/api/webhooks/${created.uuid}`)).body.collections).toEqual([]);

    const cleared = await req('PUT', `/api/webhooks/${created.uuid}`, valid({ secret: null }));
    expect(cleared.body.has_secret).toBe(false);

    // PUT is not a patch: required fields must be present
    const partial = await req('PUT', `/api/webhooks/${created.uuid}`, { name: 'only a name' });
    expect(partial.status).toBe(422);
    expect(Object.keys(partial.body.errors).sort()).toEqual(['events', 'sources', 'url']);
  });

  it('validates every field (422, Laravel-style keys) and reports all problems at once', async () => {
    const res = await req('POST', '/api/webhooks', {
      name: 'x'.repeat(256),
      url: 'not a url',
      secret: '12345',
      events: ['content.created', 'content.exploded'],
      sources: ['dashboard'],
      payload: 'yes',
      status: 1,
      collection_ids: [posts.id, 'seven', foreign.id, 999999],
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toEqual(expect.any(String));
    expect(res.body.errors).toEqual({
      name: ['The name field must not be greater than 255 characters.'],
      url: ['The url field must be a valid URL.'],
      secret: ['The secret field must be at least 6 characters.'],
      'events.1': [`The selected events.1 is invalid. Valid events: ${EVENT_NAMES.join(', ')}.`],
      'sources.0': ['The selected sources.0 is invalid. Valid sources: cms, api.'],
      payload: ['The payload field must be true or false.'],
      status: ['The status field must be true or false.'],
      'collection_ids.1': ['The collection_ids.1 field must be an integer.'],
      'collection_ids.2': ['The selected collection_ids.2 is invalid.'],
      'collection_ids.3': ['The selected collection_ids.3 is invalid.'],
    });
    // Collection ownership is checked once the shape is right: another project's id is invalid.
    const foreignIds = await req('POST', '/api/webhooks', valid({ collection_ids: [posts.id, foreign.id, 999999] }));
    expect(foreignIds.status).toBe(422);
    expect(foreignIds.body.errors).toEqual({
      'collection_ids.1': ['The selected collection_ids.1 is invalid.'],
      'collection_ids.2': ['The selected collection_ids.2 is invalid.'],
    });
    const missing = await req('POST', '/api/webhooks', {});
    expect(Object.keys(missing.body.errors).sort()).toEqual(['events', 'name', 'sources', 'url']);
    expect(missing.body.errors.name).toEqual(['The name field is required.']);
    const notObject = await req('POST', '/api/webhooks', [1, 2]);
    expect(notObject.status).toBe(422);
    const tooLong = await req('POST', '/api/webhooks', valid({ url: `http://127.0.0.1/${'a'.repeat(2048)}` }));
    expect(tooLong.body.errors.url).toEqual(['The url field must not be greater than 2048 characters.']);
    const emptyEvents = await req('POST', '/api/webhooks', valid({ events: [] }));
    expect(emptyEvents.body.errors.events).toEqual(['The events field is required.']);
  });

  it('accepts all 15 event names', async () => {
    const events = [
      'content.created', 'content.updated', 'content.published', 'content.unpublished', 'content.deleted', 'content.trashed', 'content.restored',
      'auth.signup.success', 'auth.login.success', 'auth.logout.success', 'auth.logout_all.success', 'auth.email_verification.verified',
      'release.published', 'release.failed', 'release.scheduled',
    ];
    const res = await req('POST', '/api/webhooks', valid({ events }));
    expect(res.status).toBe(201);
    expect(res.body.events).toEqual(events);
  });

  it('treats another project\'s webhook and malformed ids as unknown (404 "Webhook not found.")', async () => {
    const mine = (await req('POST', '/api/webhooks', valid())).body;
    for (const [method, url, body] of [
      ['GET', `/api/webhooks/${mine.uuid}`],
      ['PUT', `/api/webhooks/${mine.uuid}`, valid()],
      ['DELETE', `/api/webhooks/${mine.uuid}`],
      ['GET', `/api/webhooks/${mine.uuid}/logs`],
      ['POST', `/api/webhooks/${mine.uuid}/ping`],
      ['POST', `/api/webhooks/${mine.uuid}/logs/1/redeliver`],
    ] as const) {
      const res = await req(method, url, body, other.headers);
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body).toEqual({ message: 'Webhook not found.' });
    }
    for (const bad of ['nope', '00000000-0000-0000-0000-000000000000', `${mine.uuid}x`]) {
      const res = await req('GET', `/api/webhooks/${bad}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Webhook not found.' });
    }
    // still there for its owner
    expect((await req('GET', `/api/webhooks/${mine.uuid}`)).status).toBe(200);
  });

  it('requires the admin ability (403 names admin or *), 401 without a token, 400 without a project', async () => {
    const hook = (await req('POST', '/api/webhooks', valid())).body;
    const readOnly = await p.tokenWith(['read', 'create', 'update', 'delete']);
    for (const [method, url] of [
      ['GET', '/api/webhooks'],
      ['POST', '/api/webhooks'],
      ['GET', `/api/webhooks/${hook.uuid}`],
      ['PUT', `/api/webhooks/${hook.uuid}`],
      ['DELETE', `/api/webhooks/${hook.uuid}`],
      ['GET', `/api/webhooks/${hook.uuid}/logs`],
      ['POST', `/api/webhooks/${hook.uuid}/ping`],
    ] as const) {
      const res = await req(method, url, method === 'POST' || method === 'PUT' ? valid() : undefined, readOnly);
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.message).toMatch(/"admin" or "\*"/);
    }
    const admin = await p.tokenWith(['admin']);
    expect((await req('GET', '/api/webhooks', undefined, admin)).status).toBe(200);
    expect((await req('GET', '/api/webhooks', undefined, { 'project-id': p.uuid })).status).toBe(401);
    expect((await req('GET', '/api/webhooks', undefined, { authorization: p.headers.authorization })).status).toBe(400);
  });

  it('DELETE answers 204 with no body, removes the collection links, keeps the log rows', async () => {
    const hook = (await req('POST', '/api/webhooks', valid({ collection_ids: [posts.id] }))).body;
    const row = await t.database.prisma.webhook.findUniqueOrThrow({ where: { uuid: hook.uuid } });
    await t.database.prisma.webhookLog.create({
      data: { webhookId: row.id, deliveryId: crypto.randomUUID(), attempt: 1, action: 'content.published', url: URL_OK, status: '200', request: {}, response: {} },
    });
    const res = await req('DELETE', `/api/webhooks/${hook.uuid}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await t.database.prisma.webhookCollection.count({ where: { webhookId: row.id } })).toBe(0);
    expect(await t.database.prisma.webhookLog.count({ where: { webhookId: row.id } })).toBe(1);
    expect((await req('GET', `/api/webhooks/${hook.uuid}`)).status).toBe(404);
    expect((await req('DELETE', `/api/webhooks/${hook.uuid}`)).status).toBe(404);
  });

  it('pages logs newest first: default 25, capped at 100, Laravel paginator keys', async () => {
    const hook = (await req('POST', '/api/webhooks', valid())).body;
    const row = await t.database.prisma.webhook.findUniqueOrThrow({ where: { uuid: hook.uuid } });
    await t.database.prisma.webhookLog.createMany({
      data: Array.from({ length: 130 }, (_, i) => ({
        webhookId: row.id,
        deliveryId: crypto.randomUUID(),
        attempt: 1,
        action: 'content.updated',
        url: URL_OK,
        status: String(200 + (i % 2)),
        request: { n: i },
        response: { status: 200, body: '', body_truncated: false },
      })),
    });
    const first = await req('GET', `/api/webhooks/${hook.uuid}/logs`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ current_page: 1, per_page: 25, total: 130, last_page: 6, from: 1, to: 25 });
    expect(first.body.data).toHaveLength(25);
    expect(first.body.data[0].request).toEqual({ n: 129 });
    expect(first.body.data[0]).toEqual({
      id: expect.any(Number),
      delivery_id: expect.any(String),
      attempt: 1,
      action: 'content.updated',
      url: URL_OK,
      status: '201',
      request: { n: 129 },
      response: { status: 200, body: '', body_truncated: false },
      duration_ms: null,
      created_at: expect.any(String),
    });
    const ids = first.body.data.map((l: { id: number }) => l.id);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);

    const capped = await req('GET', `/api/webhooks/${hook.uuid}/logs?paginate=500`);
    expect(capped.body).toMatchObject({ per_page: 100, last_page: 2 });
    expect(capped.body.data).toHaveLength(100);
    const last = await req('GET', `/api/webhooks/${hook.uuid}/logs?paginate=100&page=2`);
    expect(last.body).toMatchObject({ current_page: 2, from: 101, to: 130 });
    expect(last.body.data.at(-1).request).toEqual({ n: 0 });
    const beyond = await req('GET', `/api/webhooks/${hook.uuid}/logs?page=99`);
    expect(beyond.body).toMatchObject({ current_page: 99, data: [], from: null, to: null, total: 130 });
    for (const q of ['paginate=0', 'paginate=abc', 'page=-1', 'page=1.5']) {
      const bad = await req('GET', `/api/webhooks/${hook.uuid}/logs?${q}`);
      expect(bad.status, q).toBe(422);
    }
  });

  it('answers 429 from the webhooks rate budget', async () => {
    const limited = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '4' } });
    try {
      const lp = await limited.project();
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await limited.request({ method: 'GET', url: '/api/webhooks', headers: lp.headers })).status);
      // webhooks get half the default budget: 2 per minute here
      expect(statuses).toEqual([200, 200, 429, 429]);
      const res = await limited.request({ method: 'GET', url: '/api/webhooks', headers: lp.headers });
      expect(res.headers['retry-after']).toBeDefined();
    } finally {
      await limited.close();
    }
  });
});
