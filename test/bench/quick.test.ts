import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SCENARIO_ROWS } from '../../bench/main.ts';

/**
 * Keeps `npm run bench` from rotting: runs the harness in quick mode with tiny knobs (the figures
 * mean nothing here) and checks that it completes and prints every scenario row and a verdict per
 * target. Timing is never asserted.
 */
function runQuickBench(): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/main.ts'], {
      env: {
        ...process.env,
        BENCH_QUICK: '1',
        BENCH_DURATION: '1',
        BENCH_CONNECTIONS: '4',
        BENCH_POSTS: '20',
        BENCH_AUTHORS: '5',
        BENCH_WHERE_ROWS: '500',
        BENCH_WHERE_ITERATIONS: '2',
        BENCH_FALLBACK_ROWS: '500',
        BENCH_FALLBACK_ITERATIONS: '2',
        BENCH_WEBHOOK_EVENTS: '50',
        BENCH_SCHEMA_BUILDS: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

describe('bench harness (BENCH_QUICK)', () => {
  it('completes and prints every scenario row and a verdict per target', async () => {
    const { code, out } = await runQuickBench();
    expect(code, out).toBe(0);
    const tableLines = out.split('\n').filter((l) => l.startsWith('| '));
    for (const row of SCENARIO_ROWS) {
      expect(tableLines.some((l) => l.startsWith(`| ${row} |`)), `row "${row}" missing:\n${out}`).toBe(true);
    }
    const verdicts = tableLines.filter((l) => / \| (PASS|MISS|n\/a) \|$/.test(l));
    for (const target of ['published REST get', 'GraphQL list of 25', 'where (5 cases', 'fallback list (', 'bulk create 50 items × 4 clients, drafts', 'bulk create 50 items × 4 clients, published', 'webhooks >', 'schema build', 'cache off: GraphQL list', 'cache off: REST get', 'cache off: REST filtered list', 'mixed 90 %', 'cold start to /readyz on PostgreSQL', 'live fan-out']) {
      expect(verdicts.some((l) => l.startsWith(`| ${target}`)), `verdict for "${target}" missing:\n${out}`).toBe(true);
    }
  }, 360_000);
});
