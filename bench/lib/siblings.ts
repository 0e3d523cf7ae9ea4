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
}

type WebhookOptions = { events?: number; latencyEvents?: number; rate?: number };

export async function loadWebhookRunner(): Promise<((label: string, o: WebhookOptions, log: Log) => Promise<Row>) | undefined> {
  const run = (await optionalImport('../webhooks.ts'))?.runWebhookBench as ((o: WebhookOptions, log: Log) => Promise<WebhookRun>) | undefined;
  if (!run) return undefined;
  return async (label, o, log) => {
    const r = await run(o, log);
    return {
      scenario: label,
      rate: r.throughput.deliveriesPerSec,
      unit: 'deliveries/s',
      p50: r.latency.p50,
      p95: r.latency.p95,
      p99: r.latency.p99,
      errors: r.latency.events - r.latency.delivered + r.throughput.duplicates,
      note: `bench/webhooks.ts: throughput over ${int(r.throughput.events)} queued events (one worker); commit→delivery latency at ${r.latency.rate} events/s (${r.latency.delivered}/${r.latency.events} delivered)`,
    };
  };
}
