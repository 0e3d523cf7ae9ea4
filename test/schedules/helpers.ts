import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { REDIS_URL } from '../helpers/pg.ts';
import { waitFor } from '../helpers/receiver.ts';
import { world, posts, type World } from '../helpers/world.ts';
import { dropQueueKeys } from '../webhooks/helpers.ts';
import type { ScheduleOptions } from '../../src/schedules/options.ts';

export { waitFor, dropQueueKeys };

export const uniquePrefix = () => `tsch${process.pid}${Math.random().toString(36).slice(2, 8)}`;

/** Test-speed schedule settings and a private BullMQ prefix, so parallel files never share a queue. */
export function fastScheduleOptions(extra: Partial<ScheduleOptions> = {}): Partial<ScheduleOptions> {
  return { queuePrefix: uniquePrefix(), sweepIntervalMs: 500, horizonMs: 60_000, pollIntervalMs: 100, leaseMs: 3000, lockDurationMs: 2000, stalledIntervalMs: 1000, ...extra };
}

export interface ScheduleWorld extends World {
  prefix: string;
  /** Creates an entry of `posts` through the API; `published` publishes it on create. */
  entry(title: string, published?: boolean): Promise<string>;
  /** POST …/schedule, expecting 201; answers the schedule. */
  schedule(uuid: string, action: 'publish' | 'unpublish', inMs: number, extra?: Record<string, unknown>): Promise<{ id: string; at: string; status: string }>;
  /** The entry's schedules as GET …/schedule lists them. */
  schedules(uuid: string): Promise<Array<Record<string, any>>>;
  /** Waits until the schedule leaves `scheduled`, and answers it. */
  settled(uuid: string, id: string, timeoutMs?: number): Promise<Record<string, any>>;
  /** The delayed BullMQ job of a schedule, or undefined. */
  job(id: string): Promise<unknown>;
  closeAll(): Promise<void>;
}

/**
 * A world with `posts`, Redis on, the schedule runtime on a private prefix with short intervals;
 * `start: false` leaves the runner stopped (the test starts it, or a child process does).
 */
export async function scheduleWorld(opts: { start?: boolean; redis?: boolean; embedded?: boolean; env?: Record<string, string>; receiver?: true } = {}): Promise<ScheduleWorld> {
  const redis = opts.redis !== false && !opts.embedded;
  const w = await world({
    app: { embedded: opts.embedded, env: { ...(redis ? { REDIS_URL } : {}), WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', ...opts.env } },
    collections: [posts()],
    tokens: { reader: ['read'], writer: ['create'] },
    receiver: opts.receiver,
  });
  const runtime = w.t.services.schedules!;
  Object.assign(runtime.options, fastScheduleOptions());
  const prefix = runtime.options.queuePrefix;
  if (opts.start !== false) await runtime.start();
  let queue: Queue | undefined;
  let connection: Redis | undefined;
  const sw: ScheduleWorld = Object.assign(w, {
    prefix,
    async entry(title: string, published = false) {
      const res = await w.api('POST', '/api/posts', { data: { title }, ...(published ? { state: 'published' } : {}) });
      if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
      return res.body.uuid as string;
    },
    async schedule(uuid: string, action: 'publish' | 'unpublish', inMs: number, extra: Record<string, unknown> = {}) {
      const res = await w.api('POST', `/api/posts/${uuid}/schedule`, { action, at: new Date(Date.now() + inMs).toISOString(), ...extra });
      if (res.status !== 201) throw new Error(`schedule failed: ${res.status} ${res.text}`);
      return res.body.data;
    },
    async schedules(uuid: string) {
      const res = await w.api('GET', `/api/posts/${uuid}/schedule`);
      if (res.status !== 200) throw new Error(`list failed: ${res.status} ${res.text}`);
      return res.body.data;
    },
    async settled(uuid: string, id: string, timeoutMs = 15_000) {
      let found: Record<string, any> | undefined;
      await waitFor(async () => {
        found = (await sw.schedules(uuid)).find((s) => s.id === id);
        return !!found && found.status !== 'scheduled';
      }, timeoutMs);
      return found!;
    },
    async job(id: string) {
      connection ??= new Redis(REDIS_URL, { maxRetriesPerRequest: null });
      queue ??= new Queue(runtime.options.queueName, { connection, prefix });
      return (await queue.getJob(id)) ?? undefined;
    },
    async closeAll() {
      await queue?.close();
      connection?.disconnect();
      await w.close();
      if (redis) await dropQueueKeys(prefix);
    },
  });
  return sw;
}
