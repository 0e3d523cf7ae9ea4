import { percentiles, type Percentiles } from './stats.ts';
import { optionalImport } from './optional-import.ts';

export interface SchemaBuildResult extends Percentiles {
  builds: number;
  source: string;
}

/**
 * Typed-schema build time for `collections` × `fields`: bench/graphql-schema.ts's runner when it
 * exports one (`runSchemaBench`), else the same measurement here over the test suite's
 * `largeProject` fixture (each build from scratch, as after a schema change).
 */
export async function schemaBuildTime(collections: number, fields: number, builds: number): Promise<SchemaBuildResult> {
  const sibling = (await optionalImport('../graphql-schema.ts')) as {
    runSchemaBench?: (o: { collections: number; fields: number; builds: number }) => Promise<{ p50: number; p95: number; p99?: number; cpuP50?: number }>;
  } | null;
  if (sibling?.runSchemaBench) {
    const r = await sibling.runSchemaBench({ collections, fields, builds });
    const cpu = r.cpuP50 === undefined ? '' : `, CPU p50 ${r.cpuP50.toFixed(1)} ms`;
    return { p50: r.p50, p95: r.p95, p99: r.p99 ?? r.p95, builds, source: `bench/graphql-schema.ts (wall time incl. schema validation${cpu})` };
  }
  const { buildTypedSchema } = await import('../../src/graphql/schema/typed/build.ts');
  const { schema: core } = await import('../../src/graphql/schema/core/index.ts');
  const { largeProject } = await import('../../test/graphql/schema-fixtures.ts');
  const project = largeProject(collections, fields);
  buildTypedSchema(core, project); // warm the module code paths once; every timed build starts fresh
  const times: number[] = [];
  for (let i = 0; i < builds; i++) {
    const t = performance.now();
    buildTypedSchema(core, project);
    times.push(performance.now() - t);
  }
  return { ...percentiles(times), builds, source: 'bench/lib/schema-build.ts (no runner exported by bench/graphql-schema.ts)' };
}
