import { describe, expect, it } from 'vitest';
import { closedAfterEach, startReceiver, waitFor, webhookEnv } from './helpers.ts';

/**
 * What a Redis outage leaves: due deliveries in PostgreSQL that no queue holds. The sweeper puts the
 * whole backlog back (not one page per sweep), behind fresh deliveries: an event committed while it
 * drains overtakes it instead of waiting for it.
 */
describe('a backlog after an outage', () => {
  const open = closedAfterEach();

  it('drains past one sweep page, and a fresh event passes it', { timeout: 120_000 }, async () => {
    const BACKLOG = 2500;
    // Slow enough that the backlog takes seconds at this concurrency.
    const rx = open(await startReceiver(() => ({ status: 200, body: 'ok', delayMs: 4 })));
    const env = open(await webhookEnv({ redis: true, options: { concurrency: 2, sweepIntervalMs: 500, sweepGraceMs: 300 } }));
    const hook = await env.hook({ name: 'h', url: rx.url, events: ['content.updated'], sources: ['api'] });
    const db = env.t.database.prisma;
    const { id: webhookId } = await db.webhook.findUniqueOrThrow({ where: { uuid: hook.uuid } });
    await db.$executeRaw`
      INSERT INTO webhook_deliveries (id, webhook_id, event, body, status, attempts, next_attempt_at)
      SELECT gen_random_uuid(), ${webhookId}, 'content.updated',
             jsonb_build_object('event', 'content.updated', 'entry_uuid', gen_random_uuid(), 'backlog', true), 'pending', 0, now() - interval '1 minute'
      FROM generate_series(1, ${BACKLOG})`;
    const backlogSeen = () => rx.received.filter((r) => r.json.backlog === true).length;
    await waitFor(() => backlogSeen() >= 20, 30_000);

    const fresh = crypto.randomUUID();
    const atEmit = backlogSeen();
    await env.emit([{ event: 'content.updated', entryUuid: fresh }]);
    await waitFor(() => rx.received.some((r) => r.json.entry_uuid === fresh), 30_000);
    const passed = backlogSeen() - atEmit;
    // It waited for at most the sends already in flight, not for the queued backlog.
    expect(passed, `backlog deliveries that arrived before the fresh one: ${passed}`).toBeLessThan(200);

    await waitFor(() => backlogSeen() >= BACKLOG, 90_000, () => `${backlogSeen()} of ${BACKLOG}`);
    // The receiver sees a request before its sender records the answer: every row ends delivered.
    const undelivered = async () => (await db.$queryRaw<Array<{ n: number }>>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'delivered'`)[0].n;
    await waitFor(async () => (await undelivered()) === 0, 10_000, () => 'deliveries still not marked delivered');
  });
});
