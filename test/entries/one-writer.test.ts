import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * One writer per table: a version row is written (inserted, pruned, annotated) only by the entries
 * store's statement builder, and outbox rows are inserted only by the outbox module, so a rule about
 * either (the columns of a version, retention, the pointer, telling the dispatcher) lives once. The
 * builder splices the outbox's own SQL fragment into an entry's statement; nothing else may.
 */

const ROOT = join(import.meta.dirname, '../..');
const BUILDER = 'src/entries/store/version-statement.ts';
// The events domain's outbox: the only text that inserts, marks or prunes outbox rows (delivery splices
// its claim and prune fragments into its own statements).
const OUTBOX = ['src/events/outbox.ts'];

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((d) => {
    const path = `${dir}/${d.name}`;
    if (d.isDirectory()) return path === 'src/db/generated' ? [] : sources(path);
    return d.name.endsWith('.ts') ? [path] : [];
  });
}

const files = sources('src').map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));
const matching = (re: RegExp) => files.filter((f) => re.test(f.text)).map((f) => f.path);

describe('one writer', () => {
  it('scans the source tree', () => {
    expect(files.map((f) => f.path)).toContain(BUILDER);
    expect(files.some((f) => OUTBOX.includes(f.path))).toBe(true);
  });

  it('only the statement builder writes entry_versions (SQL or Prisma)', () => {
    expect(matching(/\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+entry_versions\b/i)).toEqual([BUILDER]);
    expect(matching(/\.entryVersion\s*\.\s*(?:create|createMany|createManyAndReturn|update|updateMany|upsert|delete|deleteMany)\b/).filter((p) => p !== BUILDER)).toEqual([]);
  });

  it('only the outbox module writes outbox_events (SQL or Prisma)', () => {
    const sql = matching(/\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+outbox_events\b/i);
    const prisma = matching(/\.outboxEvent\s*\.\s*(?:create|createMany|createManyAndReturn|update|updateMany|upsert|delete|deleteMany)\b/);
    expect([...sql, ...prisma].filter((p) => !OUTBOX.includes(p))).toEqual([]);
    expect(sql.length).toBeGreaterThan(0);
  });

  it('only the statement builder splices the outbox fragment into its statements and reports outboxWritten', () => {
    const splicers = matching(/\bimport\s*\{[^}]*\b(?:contentEventsInsertSql|outboxWritten)\b[^}]*\}\s*from\s*'[^']*outbox\.ts'/);
    expect(splicers.filter((p) => !OUTBOX.includes(p))).toEqual([BUILDER]);
  });
});
