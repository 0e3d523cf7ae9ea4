/**
 * Prints the SQL that takes a database from one schema.prisma to another (default: from empty to
 * prisma/schema.prisma). Prisma 7's migrate engine needs a native binary this machine cannot fetch;
 * the Prisma 6 CLI (dev dependency `prisma6`) diffs through its WASM engine instead, given a live
 * PostgreSQL to introspect through. Used to write new migrations and by the migration test.
 *
 *   tsx scripts/migration-sql.ts [--from path/to/old.prisma] [--to prisma/schema.prisma]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

export function migrationSql(opts: { from?: string; to: string; databaseUrl: string }): string {
  const dir = mkdtempSync(join(tmpdir(), 'cms-migsql-'));
  try {
    const toFile = copyForPrisma6(opts.to, join(dir, 'to.prisma'));
    const fromArgs = opts.from
      ? ['--from-schema-datamodel', copyForPrisma6(opts.from, join(dir, 'from.prisma'))]
      : ['--from-empty'];
    symlinkSync(resolve('node_modules'), join(dir, 'node_modules'));
    writeFileSync(
      join(dir, 'prisma.config.ts'),
      `import { defineConfig } from 'prisma6/config';\nimport { PrismaPg } from '@prisma/adapter-pg';\n` +
        `export default defineConfig({ engine: 'js', experimental: { adapter: true }, schema: 'to.prisma',\n` +
        `  adapter: async () => new PrismaPg({ connectionString: ${JSON.stringify(opts.databaseUrl)} }) });\n`,
    );
    return execFileSync(
      process.execPath,
      [resolve('node_modules/prisma6/build/index.js'), 'migrate', 'diff', ...fromArgs, '--to-schema-datamodel', toFile, '--script'],
      {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        // The WASM schema engine does the diff; pointing the native engines at /bin/false stops the
        // CLI from trying to download them.
        env: {
          ...process.env,
          DATABASE_URL: opts.databaseUrl,
          PRISMA_HIDE_UPDATE_MESSAGE: '1',
          PRISMA_QUERY_ENGINE_LIBRARY: '/bin/false',
          PRISMA_SCHEMA_ENGINE_BINARY: '/bin/false',
        },
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Prisma 6 wants a url in the datasource and knows neither Prisma 7 generators nor their options. */
function copyForPrisma6(src: string, dest: string): string {
  const text = readFileSync(src, 'utf8')
    .replace(/generator\s+\w+\s*\{[^}]*\}/g, '')
    .replace(/datasource db \{([^}]*)\}/, 'datasource db {$1  url = env("DATABASE_URL")\n}');
  writeFileSync(dest, text);
  return dest;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { from: { type: 'string' }, to: { type: 'string', default: 'prisma/schema.prisma' } } });
  const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  process.stdout.write(migrationSql({ from: values.from, to: values.to!, databaseUrl }));
}
