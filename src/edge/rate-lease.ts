import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

interface Lease {
  /** Points taken from the shared store and not yet handed out. */
  left: number;
  /** End of the store's window the points belong to; they are worthless after it. */
  until: number;
  size: number;
  takenAt: number;
  /** The store said no: answer 429 locally until its window ends. */
  blockedUntil: number;
  /** What the store reported left for everyone after the last take. */
  remaining: number;
  pending?: Promise<void>;
}

/** Points left for a key (approximate under leasing) and milliseconds until its window resets. */
export interface LeaseState {
  remaining: number;
  msBeforeReset: number;
}

const stateOf = (lease: Lease, now: number): LeaseState => ({
  remaining: Math.max(0, lease.remaining + lease.left),
  msBeforeReset: Math.max(0, lease.until - now),
});

export interface LeaseOptions {
  /** The store's budget per window. */
  points: number;
  /** A lease used up faster than this was too small: the next one doubles. */
  hotMs?: number;
  /** No lease takes more than this share of what the store has left, so near the limit leases shrink to one point. */
  maxShare?: number;
  now?: () => number;
}

/**
 * Takes points from a shared rate-limit store (Redis, through rate-limiter-flexible) in leases, so a
 * busy key costs a store round trip every `hotMs` rather than on every request.
 *
 * A quiet key leases one point at a time: exactly today's behaviour, so a client spreading a few
 * requests over many replicas gets its whole budget. A key that empties its lease within `hotMs`
 * gets one twice the size next time; one that doesn't, half. What a replica may hold unused is
 * therefore about `hotMs` of the key's own traffic, and never more than `maxShare` of what is left,
 * so the closer a key is to its limit the closer the count is to exact. A lease the store refuses in
 * full is given back and retried as a single point, so a large lease never burns the last points.
 */
export class LeasedLimiter {
  private readonly leases = new Map<string, Lease>();
  private readonly hotMs: number;
  private readonly maxShare: number;
  private readonly now: () => number;

  constructor(
    private readonly store: RateLimiterAbstract,
    private readonly opts: LeaseOptions,
  ) {
    this.hotMs = opts.hotMs ?? 200;
    this.maxShare = opts.maxShare ?? 0.05;
    this.now = opts.now ?? Date.now;
  }

  /**
   * Takes one point for `key`; rejects with the store's RateLimiterRes when the budget is spent.
   * Resolves to what is left, approximately: what the store reported at the last take plus what this
   * replica's lease still holds (other replicas' unused leases are not known here).
   */
  /**
   * A point from this replica's lease when one is there, without waiting: undefined when taking it
   * would need the store (no lease, an empty or expired one, or one being refilled) or the key is
   * blocked, and then nothing was taken. For callers that have a slower path to hand the request to.
   */
  tryConsume(key: string): LeaseState | undefined {
    const lease = this.leases.get(key);
    const now = this.now();
    if (!lease || lease.pending || lease.blockedUntil > now || lease.left <= 0 || lease.until <= now) return undefined;
    lease.left--;
    return stateOf(lease, now);
  }

  async consume(key: string): Promise<LeaseState> {
    for (;;) {
      const now = this.now();
      let lease = this.leases.get(key);
      if (lease && lease.blockedUntil > now) throw new RateLimiterRes(0, lease.blockedUntil - now, this.opts.points, false);
      if (lease && lease.left > 0 && lease.until > now) {
        lease.left--;
        return stateOf(lease, now);
      }
      if (lease?.pending) {
        // Another request is already asking the store for this key: share its answer.
        await lease.pending.catch(() => {});
        continue;
      }
      if (!lease) {
        this.sweep(now);
        lease = { left: 0, until: 0, size: 0, takenAt: 0, blockedUntil: 0, remaining: this.opts.points };
        this.leases.set(key, lease);
      }
      const l = lease;
      l.pending = this.take(key, l, now).finally(() => (l.pending = undefined));
      // take() keeps this request's point out of the lease before anyone waiting can see it.
      await l.pending;
      return stateOf(l, now);
    }
  }

  private async take(key: string, lease: Lease, now: number): Promise<void> {
    const cap = Math.max(1, Math.floor(lease.remaining * this.maxShare));
    const emptiedFast = lease.size > 0 && lease.until > now && now - lease.takenAt < this.hotMs;
    const size = Math.min(cap, emptiedFast ? lease.size * 2 : Math.max(1, Math.floor(lease.size / 2)));
    let res: RateLimiterRes;
    try {
      res = await this.store.consume(key, size);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      if (size === 1) return this.block(lease, err, now);
      // The full lease did not fit, but some points may be left: give the lease back, try for one.
      await this.store.reward(key, size).catch(() => {});
      try {
        res = await this.store.consume(key, 1);
        lease.size = 1;
        this.fill(lease, 1, res, now);
        return;
      } catch (err2) {
        if (!(err2 instanceof RateLimiterRes)) throw err2;
        return this.block(lease, err2, now);
      }
    }
    lease.size = size;
    this.fill(lease, size, res, now);
  }

  private fill(lease: Lease, size: number, res: RateLimiterRes, now: number): void {
    lease.left = size - 1;
    lease.takenAt = now;
    lease.until = now + res.msBeforeNext;
    lease.remaining = res.remainingPoints;
  }

  private block(lease: Lease, res: RateLimiterRes, now: number): never {
    lease.left = 0;
    lease.size = 0;
    lease.blockedUntil = now + res.msBeforeNext;
    lease.remaining = this.opts.points;
    throw res;
  }

  /** Drops leases whose window is over, so the map holds only keys active in the current window. */
  private sweep(now: number): void {
    if (this.leases.size < 10_000) return;
    for (const [key, lease] of this.leases) if (lease.until <= now && lease.blockedUntil <= now && !lease.pending) this.leases.delete(key);
  }
}
