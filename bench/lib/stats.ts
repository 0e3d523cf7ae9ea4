/** Small numeric helpers shared by the benchmark runners. */

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
}

export function percentiles(samples: number[]): Percentiles {
  const s = [...samples].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p95: percentile(s, 95), p99: percentile(s, 99) };
}

export const ms = (v: number | undefined): string => (v === undefined || Number.isNaN(v) ? '-' : v < 10 ? v.toFixed(2) : v.toFixed(1));
export const int = (v: number | undefined): string => (v === undefined || Number.isNaN(v) ? '-' : Math.round(v).toLocaleString('en-US'));
export const mb = (bytes: number | undefined): string => (bytes === undefined || !bytes ? '-' : `${Math.round(bytes / 1_048_576)} MB`);

export function sleep(msDelay: number): Promise<void> {
  return new Promise((r) => setTimeout(r, msDelay));
}
