import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookEnv, type WebhookTestEnv } from './helpers.ts';
import { openPostgres, type Database } from '../../src/db/client.ts';
import { DeliveryStore } from '../../src/delivery/store.ts';
import { recordStatements } from '../helpers/sql-count.ts';

describe('several dispatchers (replicas) on one outbox', () => {
  let env: WebhookTestEnv;
  const pools: Database[] = [];
  beforeAll(async () => {
    env = await webhookEnv({ start: false });
  });
  afterAll(async () => {
    for (const p of pools) await p.close();
    await env.close();
  });

  it('split the rows between them: every outbox row is dispatched once, every delivery handed on once', { timeout: 120_000 }, async () => {
    await env.hook({ name: 'a', url: 'http://127.0.0.1:9/a', events: ['content.updated'], sources: ['api'] });
    await env.hook({ name: 'b', url: 'http://127.0.0.1:9/b', events: ['content.updated'], sources: ['api'], collection_ids: [env.collection.id] });
    const total = 3000;
    for (let i = 0; i < total; i += 500) await env.emit(Array.from({ length: 500 }, () => ({ event: 'content.updated' as const })));

    // Four "replicas", each with its own connection pool, draining in small batches at once.
    const replicas = Array.from({ length: 4 }, () => {
      const db = openPostgres(env.t.databaseUrl!, 2);
      pools.push(db);
      return new DeliveryStore(db);
    });
    const results = await Promise.all(
      replicas.map(async (store) => {
        let events = 0;
        const ids: string[] = [];
        for (;;) {
          const r = await store.dispatchBatch(50);
          events += r.events;
          ids.push(...r.deliveryIds);
          if (r.events === 0) return { events, ids };
        }
      }),
    );
    const events = results.reduce((n, r) => n + r.events, 0);
    const ids = results.flatMap((r) => r.ids);
    expect(events).toBe(total);
    expect(ids).toHaveLength(2 * total);
    expect(new Set(ids).size).toBe(ids.length);
    // The work really was shared.
    expect(results.filter((r) => r.events > 0).length).toBeGreaterThan(1);
    expect(await env.t.database.prisma.webhookDelivery.count()).toBe(2 * total);
    expect(await env.t.database.prisma.outboxEvent.count({ where: { dispatchedAt: null } })).toBe(0);
  });

  it('sends the dispatch and the claim as named statements, so each connection plans them once', async () => {
    await env.emit([{ event: 'content.updated' as const }]);
    const store = new DeliveryStore(env.t.database);
    const { result, texts, names } = await recordStatements(async () => {
      const dispatched = await store.dispatchBatch(10);
      return { dispatched, claimed: await store.claimByIds(dispatched.deliveryIds, 60_000) };
    });
    expect(result.dispatched.events).toBe(1);
    expect(result.claimed).toHaveLength(result.dispatched.deliveryIds.length);
    const sent = texts.flatMap((text, i) => (text.includes('webhook_deliveries') ? [names[i]] : []));
    expect(sent).toEqual(['cms_delivery_dispatch', 'cms_delivery_claim_ids']);
  });
});
