/**
 * Prints the core GraphQL schema to schema.graphql; with --check, fails when the file is stale
 * (CI runs the check so the committed SDL always matches the code).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from '../src/graphql/schema/core/index.ts';

const file = new URL('../schema.graphql', import.meta.url);
const sdl = `${printSchema(lexicographicSortSchema(schema))}\n`;
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // missing file counts as stale
  }
  if (current !== sdl) {
    process.stderr.write('schema.graphql is out of date: run `npm run schema:print` and commit it.\n');
    process.exit(1);
  }
  process.stdout.write('schema.graphql is up to date.\n');
} else {
  writeFileSync(file, sdl);
  process.stdout.write('wrote schema.graphql\n');
}
