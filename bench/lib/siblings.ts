import type { LoadResult } from './load.ts';
import { optionalImport } from './optional-import.ts';
import { loadRow, type Row } from './report.ts';
import { int } from './stats.ts';

/**
 * Adapters to the other engineers' benchmark runners (bench/bulk.ts, bench/webhooks.ts). Each loader
 * answers undefined when the module or its exported runner is absent; bench/main.ts then measures
 * the same thing itself against its own server.
 */

type Log = (line: string) => void;

interface BulkRun {
  name: string;
  result: LoadResult;
  entriesPerSec: number;
}

export async function loadBulkRunner(): Promise<((labels: string[], log: Log) => Promise<Row[]>) | undefined> {
  const run = (await optionalImport('../bulk.ts'))?.runBulkBench as ((log: Log) => Promise<BulkRun[]>) | undefined;
  if (!run) return undefined;
  return async (labels, log) => {
    const measured = await run(log);
    return labels.flatMap((label, i) => {
      const m = measured[i];
      return m ? [{ ...loadRow(label, m.result, 0), rate: m.entriesPerSec, unit: 'entries/s', note: `bench/bulk.ts (${m.name}; its own server)` }] : [];
    });
  };
}

interface WebhookRun {
  throughput: { events: number; deliveriesPerSec: number; duplicates: number };
  latency: { rate: number; events: number; delivered: number; p50: number; p95: number; p99: number };
  recovery?: { backlog: number; drained: number; drainSeconds: number; drainPerSec: number; rate: number; events: number; delivered: number; p50: number; p99: number };
}

type WebhookOptions = { events?: number; latencyEvents?: number; rate?: number; backlog?: number };

/** The webhook rows: throughput and latency, and (when measured) fresh events while an outage's backlog drains. */
export async function loadWebhookRunner(): Promise<((labels: { main: string; recovery: string }, o: WebhookOptions, log: Log) => Promise<{ row: Row; recovery?: Row }>) | undefined> {
  const run = (await optionalImport('../webhooks.ts'))?.runWebhookBench as ((o: WebhookOptions, log: Log) => Promise<WebhookRun>) | undefined;
  if (!run) return undefined;
  return async (labels, o, log) => {
    const r = await run(o, log);
    const v = r.recovery;
    const recovery: Row | undefined = v && {
      scenario: labels.recovery,
      rate: v.drainPerSec,
      unit: 'backlog deliveries/s',
      p50: v.p50,
      p99: v.p99,
      errors: v.events - v.delivered + (v.backlog - v.drained),
      note: `bench/webhooks.ts: ${int(v.backlog)} due deliveries in no queue (a Redis outage's backlog), fresh events at ${v.rate}/s meanwhile: p50/p99 are the fresh events' commit→delivery (${v.delivered}/${v.events}); rate is the backlog's drain (${int(v.drained)} in ${v.drainSeconds.toFixed(1)} s)`,
    };
    const row: Row = {
      scenario: labels.main,
      rate: r.throughput.deliveriesPerSec,
      unit: 'deliveries/s',
      p50: r.latency.p50,
      p95: r.latency.p95,
      p99: r.latency.p99,
      errors: r.latency.events - r.latency.delivered + r.throughput.duplicates,
      note: `bench/webhooks.ts: throughput over ${int(r.throughput.events)} queued events (one worker); commit→delivery latency at ${r.latency.rate} events/s (${r.latency.delivered}/${r.latency.events} delivered)`,
    };
    return { row, ...(recovery ? { recovery } : {}) };
  };
}
