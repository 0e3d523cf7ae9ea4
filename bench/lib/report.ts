import { int, mb, ms } from './stats.ts';
import type { LoadResult } from './load.ts';

/** One line of the results table. Throughput is requests/s unless `unit` says otherwise. */
export interface Row {
  scenario: string;
  rate?: number;
  unit?: string;
  p50?: number;
  p95?: number;
  p99?: number;
  errors?: number;
  rss?: number;
  /** e.g. "0.52 × min(bare HTTP, raw SELECT)". */
  ceiling?: string;
  note?: string;
}

export interface Target {
  name: string;
  /** What was measured, in words and numbers. */
  measured: string;
  pass: boolean | null;
}

export function ratio(value: number | undefined, ceiling: number | undefined, label: string): string | undefined {
  if (!value || !ceiling) return undefined;
  return `${(value / ceiling).toFixed(2)} × ${label}`;
}

export function formatTable(rows: Row[]): string {
  const head = '| scenario | throughput | p50 ms | p95 ms | p99 ms | errors | server RSS | vs ceiling | note |';
  const sep = '|---|---:|---:|---:|---:|---:|---:|---|---|';
  const lines = rows.map((r) =>
    [
      r.scenario,
      r.rate === undefined ? '-' : `${int(r.rate)} ${r.unit ?? 'req/s'}`,
      ms(r.p50),
      ms(r.p95),
      ms(r.p99),
      r.errors === undefined ? '-' : String(r.errors),
      mb(r.rss),
      r.ceiling ?? '',
      r.note ?? '',
    ].join(' | '),
  );
  return [head, sep, ...lines.map((l) => `| ${l} |`)].join('\n');
}

export function formatTargets(targets: Target[]): string {
  const lines = targets.map((t) => `| ${t.name} | ${t.measured} | ${t.pass === null ? 'n/a' : t.pass ? 'PASS' : 'MISS'} |`);
  return ['| target | measured | result |', '|---|---|---|', ...lines].join('\n');
}

/** A table row from one autocannon run (`rss`: peak of the server under test, 0 when not sampled). */
export const loadRow = (scenario: string, r: LoadResult, rss: number, extra: Partial<Row> = {}): Row => ({
  scenario,
  rate: r.rps,
  p50: r.p50,
  p95: r.p95,
  p99: r.p99,
  errors: r.errors,
  rss,
  note: Object.keys(r.statuses).length ? `statuses ${JSON.stringify(r.statuses)}` : undefined,
  ...extra,
});
