import type { AutocannonRequest } from 'autocannon';
import { runLoad, type LoadResult } from './load.ts';
import { call, must, postBody, type Api } from './seed.ts';
import { WebhookReceiver, nowMs } from './receiver.ts';
import { percentiles, type Percentiles } from './stats.ts';

/** Load settings shared by every scenario of a run. */
export interface Knobs {
  durationSec: number;
  connections: number;
}

const json = { 'content-type': 'application/json', accept: 'application/json' };

export function restGet(api: Api, uuids: string[], k: Knobs): Promise<LoadResult> {
  const requests: AutocannonRequest[] = uuids.slice(0, 200).map((u) => ({ method: 'GET', path: `/api/posts/${u}` }));
  return runLoad({ url: api.base, headers: api.headers, requests, ...k });
}

export function restList(api: Api, k: Knobs): Promise<LoadResult> {
  return runLoad({ url: `${api.base}/api/posts?paginate=25`, headers: api.headers, ...k });
}

export interface GraphqlQueries {
  typed: boolean;
  get: string;
  list: string;
}

/**
 * The typed per-project schema's `post` / `posts` (with the author entry) when the server serves
 * them, else the generic `entry` / `entries` queries (whose `fields` JSON carries the author).
 */
export async function graphqlQueries(api: Api): Promise<GraphqlQueries> {
  const r = await call<{ data?: { __type?: { fields: Array<{ name: string }> } } }>(api, 'POST', '/graphql', { query: '{ __type(name: "Query") { fields { name } } }' });
  const names = new Set((r.body.data?.__type?.fields ?? []).map((f) => f.name));
  if (names.has('posts') && names.has('post')) {
    return {
      typed: true,
      get: 'query Post($uuid: ID!) { post(uuid: $uuid) { uuid title views author { uuid name } } }',
      list: 'query Posts { posts(perPage: 25) { data { uuid title views author { uuid name } } pageInfo { total } } }',
    };
  }
  return {
    typed: false,
    get: 'query Post($uuid: String!) { entry(collection: "posts", uuid: $uuid) { uuid fields } }',
    list: 'query Posts { entries(collection: "posts", perPage: 25) { data { uuid fields } total } }',
  };
}

/** Runs a query once and throws on GraphQL errors, so a broken query cannot pass as a fast one. */
export async function checkGraphql(api: Api, query: string, variables?: Record<string, unknown>): Promise<void> {
  const r = await call<{ errors?: unknown[] }>(api, 'POST', '/graphql', { query, variables });
  if (r.status !== 200 || r.body.errors) throw new Error(`GraphQL check failed (${r.status}): ${JSON.stringify(r.body).slice(0, 400)}`);
}

export function graphqlGet(api: Api, q: GraphqlQueries, uuids: string[], k: Knobs): Promise<LoadResult> {
  const requests: AutocannonRequest[] = uuids.slice(0, 200).map((uuid) => ({
    method: 'POST',
    path: '/graphql',
    headers: { ...api.headers, ...json },
    body: JSON.stringify({ query: q.get, variables: { uuid } }),
  }));
  return runLoad({ url: api.base, requests, ...k });
}

export function graphqlList(api: Api, q: GraphqlQueries, k: Knobs): Promise<LoadResult> {
  return runLoad({ url: `${api.base}/graphql`, method: 'POST', headers: { ...api.headers, ...json }, body: JSON.stringify({ query: q.list }), ...k });
}

export interface BulkResult extends LoadResult {
  entriesPerSec: number;
}

/** POST /api/bulk/posts/entries with 50 items per request from `clients` connections. */
export async function bulkCreate(api: Api, authors: string[], k: Knobs & { clients: number; state: 'draft' | 'published' }): Promise<BulkResult> {
  const items = Array.from({ length: 50 }, (_, i) => ({ data: postBody(100_000 + i, authors[i % authors.length]), state: k.state }));
  const r = await runLoad({
    url: `${api.base}/api/bulk/posts/entries`,
    method: 'POST',
    headers: { ...api.headers, ...json },
    body: JSON.stringify({ items }),
    connections: k.clients,
    durationSec: k.durationSec,
    timeoutSec: 30,
  });
  return { ...r, entriesPerSec: r.rps * 50 };
}

export interface WebhookResult extends Percentiles {
  deliveriesPerSec: number;
  events: number;
  delivered: number;
  duplicates: number;
  missing: number;
}

/**
 * Deliveries/s and commit → delivery latency: one webhook on `content.created` pointing at a local
 * receiver, `events` entries created through bulk requests (50 per request, 4 at a time). Commit time
 * is when the creating request's response arrived; latency is first arrival minus that.
 */
export async function webhookThroughput(api: Api, events: number, timeoutMs: number): Promise<WebhookResult> {
  const receiver = new WebhookReceiver();
  const url = await receiver.start();
  const hook = await must<{ uuid: string }>(api, 'POST', '/api/webhooks', { name: 'bench', url, events: ['content.created'], sources: ['api', 'cms'], payload: false });
  const committedAt = new Map<string, number>();
  const requests = Math.ceil(events / 50);
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < requests) {
          const n = next++;
          const count = Math.min(50, events - n * 50);
          const items = Array.from({ length: count }, (_, i) => ({ data: { title: `hook ${n}-${i}`, views: i }, state: 'draft' }));
          const res = await must<{ data: Array<{ uuid: string }> }>(api, 'POST', '/api/bulk/posts/entries', { items });
          const at = nowMs();
          for (const e of res.data) committedAt.set(e.uuid, at);
        }
      }),
    );
    // Only this run's entries count: outbox rows still undispatched from earlier scenarios are matched
    // against webhooks at dispatch time, so they may reach this receiver too.
    await receiver.waitFor(events, timeoutMs, (d) => d.entryUuid !== undefined && committedAt.has(d.entryUuid));
    const arrivals = [...receiver.deliveries.values()].filter((d) => d.entryUuid && committedAt.has(d.entryUuid));
    const last = Math.max(...arrivals.map((d) => d.at));
    const latencies = arrivals.map((d) => d.at - committedAt.get(d.entryUuid!)!);
    return {
      deliveriesPerSec: arrivals.length / Math.max((last - Math.min(...arrivals.map((d) => d.at))) / 1000, 0.001),
      events,
      delivered: arrivals.length,
      duplicates: receiver.duplicates,
      missing: events - arrivals.length,
      ...percentiles(latencies),
    };
  } finally {
    await call(api, 'DELETE', `/api/webhooks/${hook.uuid}`);
    await receiver.close();
  }
}
