import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { posts, world, type World } from '../helpers/world.ts';
import { openSse, payloadOf } from './sse-client.ts';

/**
 * The live hub reads through a pool of its own (`Ctx.readPool`, src/live/hub.ts), so subscribers get
 * their events while the process's shared pool is taken by writers' transactions. Here every
 * connection of A's shared pool is held by a transaction left open; a write made through another
 * process (B, same database) still reaches A's subscriber.
 */
describe('live events while the shared pool is exhausted', () => {
  let w: World;
  let b: TestApp;
  let base: string;

  beforeAll(async () => {
    w = await world({ app: { env: { LIVE_POLL_MS: '200' } }, collections: [posts()] });
    b = await startTestApp({ databaseUrl: w.t.databaseUrl });
    base = await w.t.app.listen({ port: 0, host: '127.0.0.1' });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await w?.close();
  });

  /** Holds every connection of A's shared pool in an open transaction until `release` is called. */
  async function holdSharedPool(): Promise<{ release: () => Promise<void> }> {
    const database = w.t.database;
    const { max } = database.poolStats!();
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let began = 0;
    const holders = Array.from({ length: max }, () =>
      database.transaction!(async (query) => {
        await query('SELECT 1');
        began++;
        await released;
      }),
    );
    while (began < max) await new Promise((r) => setTimeout(r, 10));
    return {
      release: async () => {
        release();
        await Promise.all(holders);
      },
    };
  }

  it('a subscriber gets the event of a write made elsewhere, with no connection of the shared pool free', async () => {
    const stream = await openSse(base, 'subscription { entryChanged(collection: "posts") { event entry { fields } } }', { headers: w.p.headers });
    expect(stream.status).toBe(200);
    for (let i = 0; i < 200 && w.t.services.live.size < 1; i++) await new Promise((r) => setTimeout(r, 25));
    expect(w.t.services.live.size).toBe(1);

    const held = await holdSharedPool();
    try {
      const stats = w.t.database.poolStats!();
      expect(stats.total).toBe(stats.max);
      expect(stats.idle).toBe(0);
      const written = await b.request({ method: 'POST', url: '/api/posts', headers: w.p.headers, body: { data: { title: 'While held' } } });
      expect(written.status).toBe(201);
      const event = await stream.next();
      expect(event.event).toBe('next');
      expect(payloadOf(event).data).toEqual({ entryChanged: { event: 'CREATED', entry: expect.objectContaining({ fields: expect.objectContaining({ title: 'While held' }) }) } });
      // Nothing of it waited for the shared pool: the held transactions are still all it has.
      expect(w.t.database.poolStats!().idle).toBe(0);
    } finally {
      await held.release();
      stream.close();
    }
  });
});
