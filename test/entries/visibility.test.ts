import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, webhookEnv, waitFor, type Receiver, type WebhookTestEnv } from '../webhooks/helpers.ts';
import { GROUP_SECRET, SECRET_V1, SECRET_V2, secretData, visibilityWorld, type VisibilityWorld } from './visibility-fixture.ts';

const CONTENT_EVENTS = ['content.created', 'content.updated', 'content.published', 'content.unpublished', 'content.deleted', 'content.trashed', 'content.restored'];

/**
 * Issue 14 §2: one rule decides what a caller may see of an entry. Every output path, over REST,
 * GraphQL (core and typed) and webhooks, is called with entries whose hidden, password and hidden
 * group-child values are known secrets, and the whole response text is searched for them.
 */
describe('hidden and password values never leave the server', () => {
  let env: WebhookTestEnv;
  let rx: Receiver;
  let w: VisibilityWorld;
  let hookUuid: string;
  let vault: string;
  let shelf: string;
  let bulkVault: string;

  const rest = async (method: string, url: string, body?: unknown) => {
    const res = await env.t.request({ method, url, headers: env.p.headers, body });
    expect([200, 201], `${method} ${url}: ${res.text}`).toContain(res.status);
    return res;
  };
  const gql = async (query: string, variables: Record<string, unknown> = {}) => {
    const res = await env.t.graphql(query, variables, env.p.headers);
    expect(res.body.errors, `${query}: ${JSON.stringify(res.body.errors)}`).toBeUndefined();
    return { ...res, text: JSON.stringify(res.body) };
  };

  beforeAll(async () => {
    env = await webhookEnv();
    rx = await startReceiver();
    hookUuid = (await env.hook({ name: 'all content', url: rx.url, events: CONTENT_EVENTS, sources: ['api'] })).uuid;
    w = await visibilityWorld(env.t, env.p);
    // v1 carries SECRET_V1, v2 SECRET_V2: a diff of 1 → 2 would show the hidden field as changed.
    vault = (await rest('POST', '/api/vaults', { data: secretData('Vault'), state: 'published' })).body.uuid;
    await rest('PATCH', `/api/vaults/${vault}`, { data: { title: 'Vault 2', internal: SECRET_V2 } });
    await rest('POST', `/api/vaults/${vault}/publish`);
    shelf = (await rest('POST', '/api/shelves', { data: { name: 'Shelf', vault }, state: 'published' })).body.uuid;
    const bulk = await rest('POST', '/api/bulk/vaults/entries', { items: [{ data: secretData('Bulk'), state: 'published' }] });
    bulkVault = bulk.body.data[0].uuid;
    await w.collectHashes();
  });
  afterAll(async () => {
    await env?.close();
    await rx?.close();
  });

  it('the secrets are stored (the searches below can find them)', async () => {
    const rows = await env.t.database.prisma.$queryRaw<Array<{ internal: string; code: string }>>`
      SELECT data ->> 'internal' AS internal, data -> 'extra' ->> 'code' AS code FROM entries WHERE uuid = ${vault}::uuid`;
    expect(rows[0]).toEqual({ internal: SECRET_V2, code: GROUP_SECRET });
    const snap = await env.t.database.prisma.$queryRaw<Array<{ s: string }>>`
      SELECT v.snapshot::text AS s FROM entry_versions v JOIN entries e ON e.id = v.entry_id WHERE e.uuid = ${vault}::uuid AND v.version_number = 1`;
    expect(w.leaks(snap[0].s)).toEqual(expect.arrayContaining([SECRET_V1, GROUP_SECRET]));
  });

  const restCases: Array<[string, string, string, (() => unknown)?]> = [
    ['entry, draft', 'GET', '/api/vaults/{vault}?state=draft&timestamps=1'],
    ['entry, published', 'GET', '/api/vaults/{vault}'],
    ['list, draft', 'GET', '/api/vaults?state=draft'],
    ['list, published page', 'GET', '/api/vaults?paginate=10'],
    ['list, first', 'GET', '/api/vaults?first=1&state=draft'],
    ['nested relation, entry', 'GET', '/api/shelves/{shelf}'],
    ['nested relation, list', 'GET', '/api/shelves?state=draft'],
    ['version list', 'GET', '/api/vaults/{vault}/versions'],
    ['version detail v1', 'GET', '/api/vaults/{vault}/versions/1'],
    ['version detail v2', 'GET', '/api/vaults/{vault}/versions/2'],
    ['diff 1 → 2', 'GET', '/api/vaults/{vault}/versions/1/diff?to=2'],
    ['diff 2 → 1', 'GET', '/api/vaults/{vault}/versions/2/diff?to=1'],
    ['version label change', 'PATCH', '/api/vaults/{vault}/versions/1', () => ({ label: 'first' })],
    ['PATCH entry', 'PATCH', '/api/vaults/{vault}', () => ({ data: { title: 'Vault 3' } })],
    ['PUT entry', 'PUT', '/api/vaults/{vault}', () => ({ data: secretData('Vault 4', SECRET_V2) })],
    ['publish', 'POST', '/api/vaults/{vault}/publish'],
    ['revert', 'POST', '/api/vaults/{vault}/versions/1/revert'],
    ['unpublish', 'POST', '/api/vaults/{vault}/unpublish'],
    ['create', 'POST', '/api/vaults', () => ({ data: secretData('Created'), state: 'published' })],
    ['bulk create', 'POST', '/api/bulk/vaults/entries', () => ({ items: [{ data: secretData('Bulk 2') }] })],
    ['bulk update', 'PATCH', '/api/bulk/vaults/entries', () => ({ items: [{ uuid: bulkVault, data: { title: 'Bulk 3' }, state: 'published' }, { uuid: vault, data: {}, state: 'published' }] })],
  ];

  it.each(restCases)('REST %s: no secret in the response', async (_name, method, url, body) => {
    const res = await rest(method, url.replace('{vault}', vault).replace('{shelf}', shelf), body?.());
    expect(res.text.length).toBeGreaterThan(2);
    expect(w.leaks(res.text)).toEqual([]);
  });

  it('the group keeps its visible child and the diff its visible changes', async () => {
    const draft = await rest('GET', `/api/vaults/${vault}?state=draft`);
    expect(Object.keys(draft.body.fields.extra)).toEqual(['note']);
    expect(draft.body.fields).not.toHaveProperty('internal');
    expect(draft.body.fields).not.toHaveProperty('pin');
    const diff = await rest('GET', `/api/vaults/${vault}/versions/1/diff?to=2`);
    expect(diff.body.changed.map((c: { field: string }) => c.field)).toEqual(['title']);
    const detail = await rest('GET', `/api/vaults/${vault}/versions/1`);
    expect(detail.body.snapshot.fields).toEqual({ title: 'Vault', extra: { note: 'Vault note' } });
  });

  it('a revert still restores the hidden value it cannot show', async () => {
    await rest('POST', `/api/vaults/${vault}/versions/1/revert`);
    const rows = await env.t.database.prisma.$queryRaw<Array<{ internal: string }>>`
      SELECT data ->> 'internal' AS internal FROM entries WHERE uuid = ${vault}::uuid`;
    expect(rows[0].internal).toBe(SECRET_V1);
  });

  const versionSelection = `versions(first: 3) { totalCount nodes { versionNumber snapshot { fields meta { locale } } diff(to: 1) { added { field value } removed { field value } changed { field from to } } } }`;
  const coreCases: Array<[string, string]> = [
    ['entry with versions, snapshots and diffs', `query($u: String!) { entry(collection: "vaults", uuid: $u, state: "draft") { fields ${versionSelection} version(number: 2) { snapshot { fields } diff(to: 1) { changed { field from to } } } } }`],
    ['entries, draft', `{ entries(collection: "vaults", state: "draft", perPage: 3) { data { fields version(number: 1) { snapshot { fields } } } } }`],
    ['entries of a linking collection', `{ entries(collection: "shelves") { data { fields } } }`],
    ['createEntry', `mutation { createEntry(collection: "vaults", data: { title: "G", internal: "${SECRET_V1}", pin: "S3cretPinValue", extra: { note: "n", code: "${GROUP_SECRET}" } }, state: "published") { fields ${versionSelection} } }`],
    ['updateEntry', `mutation($u: String!) { updateEntry(collection: "vaults", uuid: $u, data: { title: "G2" }) { fields } }`],
    ['replaceEntry', `mutation($u: String!) { replaceEntry(collection: "vaults", uuid: $u, data: { title: "G3", internal: "${SECRET_V2}" }) { fields } }`],
    ['publishEntry', `mutation($u: ID!) { publishEntry(collection: "vaults", uuid: $u) { entry { fields ${versionSelection} } } }`],
    ['revertEntryVersion', `mutation($u: ID!) { revertEntryVersion(collection: "vaults", uuid: $u, version: 1) { entry { fields } version { snapshot { fields } diff(to: 2) { changed { field from to } } } } }`],
    ['updateEntryVersion', `mutation($u: ID!) { updateEntryVersion(collection: "vaults", uuid: $u, version: 2, label: "two") { snapshot { fields } diff(to: 1) { changed { field from to } } } }`],
    ['unpublishEntry', `mutation($u: ID!) { unpublishEntry(collection: "vaults", uuid: $u) { entry { fields } } }`],
    ['bulkCreateEntries', `mutation { bulkCreateEntries(collection: "vaults", items: [{ data: { title: "B", internal: "${SECRET_V1}", extra: { code: "${GROUP_SECRET}" } }, state: "published" }]) { data { fields } } }`],
    ['bulkUpdateEntries', `mutation($u: String!) { bulkUpdateEntries(collection: "vaults", items: [{ uuid: $u, data: { title: "B2" }, state: "published" }]) { data { fields } } }`],
  ];

  it.each(coreCases)('GraphQL core %s: no secret in the response', async (_name, query) => {
    const res = await gql(query, query.includes('$u: String!') || query.includes('$u: ID!') ? { u: vault } : {});
    expect(w.leaks(res.text)).toEqual([]);
  });

  const typedCases: Array<[string, string]> = [
    ['list with versions', `{ vaults(state: draft, perPage: 3) { data { title extra { note } versions { nodes { snapshot { fields } diff(to: 1) { changed { field from to } } } } } } }`],
    ['one entry', `query($u: ID!) { vault(uuid: $u, state: draft) { title extra { note } version(number: 1) { snapshot { fields } } } }`],
    ['linked entries', `{ shelves(state: draft) { data { name vault { title extra { note } } } } }`],
    ['create', `mutation { createVault(data: { title: "T", internal: "${SECRET_V1}", pin: "S3cretPinValue", extra: { note: "n", code: "${GROUP_SECRET}" } }) { title extra { note } } }`],
  ];

  it.each(typedCases)('GraphQL typed %s: no secret in the response', async (_name, query) => {
    const res = await gql(query, query.includes('$u') ? { u: vault } : {});
    expect(w.leaks(res.text)).toEqual([]);
  });

  it('GraphQL typed: hidden and password fields do not exist on the entry type', async () => {
    for (const field of ['internal', 'pin']) {
      const res = await env.t.graphql(`{ vaults { data { ${field} } } }`, {}, env.p.headers);
      expect(res.body.errors?.[0]?.message).toContain(`Cannot query field "${field}"`);
    }
    const child = await env.t.graphql(`{ vaults { data { extra { code } } } }`, {}, env.p.headers);
    expect(child.body.errors?.[0]?.message).toContain('Cannot query field "code"');
  });

  it('webhook bodies and the delivery log copies carry no secret', async () => {
    await rest('DELETE', `/api/vaults/${bulkVault}`);
    const [{ n }] = await env.t.database.prisma.$queryRaw<Array<{ n: number }>>`
      SELECT count(*)::int AS n FROM outbox_events WHERE project_id = ${env.p.id} AND collection_id = ${w.vaults.id}`;
    const vaultDeliveries = () => rx.received.filter((r) => r.json.collection?.slug === 'vaults');
    await waitFor(() => vaultDeliveries().length >= n, 30_000, () => `${vaultDeliveries().length} of ${n} vault deliveries`);
    const withEntry = vaultDeliveries().filter((r) => r.json.content_entry);
    expect(withEntry.length).toBeGreaterThan(10);
    expect(withEntry.some((r) => r.json.content_entry.fields?.extra?.note)).toBe(true);
    for (const r of rx.received) expect(w.leaks(r.raw), `${r.json.event}`).toEqual([]);

    let logs = 0;
    for (let page = 1; ; page++) {
      const res = await env.t.request({ method: 'GET', url: `/api/webhooks/${hookUuid}/logs?paginate=100&page=${page}`, headers: env.p.headers });
      expect(res.status).toBe(200);
      expect(w.leaks(res.text)).toEqual([]);
      logs += res.body.data.length;
      if (page >= res.body.last_page) break;
    }
    expect(logs).toBeGreaterThanOrEqual(n);
    // The stored copies are the request bodies: the same entries, without the secrets.
    const stored = await env.t.database.prisma.webhookLog.findMany({ select: { request: true } });
    expect(stored.some((l) => JSON.stringify(l.request).includes('Vault note'))).toBe(true);
    for (const l of stored) expect(w.leaks(JSON.stringify(l.request))).toEqual([]);
  });
});
