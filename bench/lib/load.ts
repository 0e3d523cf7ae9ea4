import autocannon, { type AutocannonRequest } from 'autocannon';
import { percentiles } from './stats.ts';

export interface LoadOptions {
  url: string;
  connections: number;
  durationSec: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Rotated through in order, one per request (e.g. different entry ids). */
  requests?: AutocannonRequest[];
  timeoutSec?: number;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  /** Connection errors + timeouts + non-2xx answers. */
  errors: number;
  total: number;
  /** First few non-2xx statuses seen, for diagnosis. */
  statuses: Record<string, number>;
}

/**
 * One autocannon run over loopback. Latencies are collected per response (autocannon's summary has
 * no p95) and errors count every non-2xx answer as well as socket errors and timeouts.
 */
export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  // autocannon treats a key that is present but undefined as set (e.g. `method: undefined` fails).
  const defined = Object.fromEntries(
    Object.entries({ method: opts.method, headers: opts.headers, body: opts.body, requests: opts.requests }).filter(([, v]) => v !== undefined),
  );
  const instance = autocannon({ url: opts.url, connections: opts.connections, duration: opts.durationSec, timeout: opts.timeoutSec ?? 10, ...defined });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    latencies.push(responseTime);
    if (statusCode < 200 || statusCode >= 300) statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
  });
  const result = await instance;
  const p = percentiles(latencies);
  const ok = result['2xx'];
  return {
    rps: ok / Math.max(result.duration, 0.001),
    ...p,
    errors: result.errors + result.timeouts + result.non2xx,
    total: result.requests.total,
    statuses,
  };
}

/**
 * Seconds of load a scenario gets before its measured run (BENCH_WARMUP, default 5). V8 optimises a
 * function after enough calls, not enough seconds, so a server serving a few hundred requests a
 * second stays partly unoptimised for several seconds after its first request, and its background
 * compiler threads bill CPU to it meanwhile: with a 1 s warm-up the cache-off GraphQL list measured
 * about twice its steady cost (BENCHMARKS.md, "Uncached reads"). Ceilings get the same. Quick mode
 * (whose figures mean nothing) warms for 1 s: seven warm-ups of 5 s were a third of its run.
 */
export const warmupSec = (): number => Number(process.env.BENCH_WARMUP ?? (['1', 'true', 'yes'].includes(process.env.BENCH_QUICK ?? '') ? 1 : 5));

/** A request list that rotates through values (autocannon cycles through `requests`). */
export function rotating<T>(values: T[], make: (v: T) => AutocannonRequest): AutocannonRequest[] {
  return values.map(make);
}
