import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ReplicaSet } from '../db/replicas.ts';

/**
 * Read replicas on /metrics, read from the replica set's memory when Prometheus scrapes (no SQL):
 * each replica's lag and whether it is in rotation, reads per target, and how long reads waited for
 * a replica to replay a write they had to see.
 */
export function registerReplicaMetrics(registry: Registry, replicas: ReplicaSet): void {
  new Gauge({
    name: 'cms_replica_lag_seconds',
    help: "Each read replica's replay lag behind the primary at its last check (-1: unknown, the check failed)",
    labelNames: ['replica'] as const,
    registers: [registry],
    collect() {
      for (const r of replicas.states()) this.set({ replica: r.name }, r.lagMs === null ? -1 : r.lagMs / 1000);
    },
  });
  new Gauge({
    name: 'cms_replica_in_rotation',
    help: 'Whether each read replica takes reads (1) or is out of rotation (0: lagging, failed, or not checked yet)',
    labelNames: ['replica', 'status'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const r of replicas.states()) this.set({ replica: r.name, status: r.status }, r.status === 'up' ? 1 : 0);
    },
  });
  new Counter({
    name: 'cms_replica_reads_total',
    help: 'Read requests by where they read: a replica, or the primary and why (no replica in rotation, the wait for a position timed out)',
    labelNames: ['target', 'reason'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const r of replicas.states()) this.inc({ target: r.name, reason: 'replica' }, r.reads);
      for (const [reason, n] of Object.entries(replicas.primaryReads)) this.inc({ target: 'primary', reason }, n);
    },
  });
  let observed = 0;
  const waits = new Histogram({
    name: 'cms_replica_wait_seconds',
    help: 'How long reads waited for a replica to replay the write they must see (only reads that waited)',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
    collect() {
      // The set keeps the last waits in a ring; those not yet observed are added now.
      const { total, recent } = replicas.waitsSince(observed);
      for (const ms of recent) waits.observe(ms / 1000);
      observed = total;
    },
  });
}
