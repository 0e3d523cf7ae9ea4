/**
 * Typed GraphQL schema build time (issue 8 target: < 200 ms for 50 collections × 20 fields).
 *
 *   npx tsx bench/graphql-schema.ts [--collections=50] [--fields=20] [--builds=15]
 *
 * Each timed build starts from scratch, as after a collection or field change: a new Pothos builder,
 * every generated type, the merged core schema and graphql-js's schema validation (which the first
 * request runs anyway). Wall time and the process's CPU time are both reported: on a shared machine
 * CPU time is the steadier of the two. The content model is the test suite's `largeProject` fixture
 * (every field kind, relations between collections, groups, enumerations).
 */
import { pathToFileURL } from 'node:url';
import { validateSchema } from 'graphql';
import { schema as core } from '../src/graphql/schema/core/index.ts';
import { buildTypedSchema } from '../src/graphql/schema/typed/build.ts';
import { largeProject } from '../test/graphql/schema-fixtures.ts';

export interface SchemaBenchOptions {
  collections: number;
  fields: number;
  builds: number;
}

export interface SchemaBenchResult {
  p50: number;
  p95: number;
  p99: number;
  cpuP50: number;
  types: number;
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

export async function runSchemaBench(o: SchemaBenchOptions): Promise<SchemaBenchResult> {
  const project = largeProject(o.collections, o.fields);
  // Warm-up builds: module code compiled and optimised, as in a server that has built schemas before.
  for (let i = 0; i < 3; i++) validateSchema(buildTypedSchema(core, project));
  const wall: number[] = [];
  const cpu: number[] = [];
  let types = 0;
  for (let i = 0; i < o.builds; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const schema = buildTypedSchema(core, project);
    validateSchema(schema);
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
    types = Object.keys(schema.getTypeMap()).length;
  }
  wall.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { p50: percentile(wall, 50), p95: percentile(wall, 95), p99: percentile(wall, 99), cpuP50: percentile(cpu, 50), types };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
  const o = { collections: arg('collections', 50), fields: arg('fields', 20), builds: arg('builds', 15) };
  const r = await runSchemaBench(o);
  const verdict = r.p50 < 200 ? 'PASS' : 'MISS';
  process.stdout.write(
    `typed schema build, ${o.collections} collections × ${o.fields} fields (${r.types} types), ${o.builds} builds:\n` +
      `  wall p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms; CPU p50 ${r.cpuP50.toFixed(1)} ms  [target < 200 ms: ${verdict}]\n`,
  );
}
