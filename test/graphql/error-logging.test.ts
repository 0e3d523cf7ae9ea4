import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { typedWorld, type TypedWorld } from './typed-world.ts';

describe('GraphQL logs client errors at debug and only unexpected ones at error (PGlite)', () => {
  let t: TestApp;
  let w: TypedWorld;
  beforeAll(async () => {
    t = await startTestApp({ embedded: true });
    w = await typedWorld(t, 'Logging');
  });
  afterAll(() => t.close());

  it('logs 403, 404 and 422 at debug without a stack', async () => {
    const error = vi.spyOn(t.services.log, 'error');
    const debug = vi.spyOn(t.services.log, 'debug');
    try {
      const readOnly = await w.p.tokenWith(['read']);
      const forbidden = await w.gql('mutation { createPost(data: { title: "x" }) { uuid } }', undefined, readOnly);
      expect(forbidden.body.errors?.[0].extensions.code).toBe('FORBIDDEN');
      const missing = await w.gql('{ post(uuid: "00000000-0000-4000-8000-000000000000") { uuid } }');
      expect(missing.body.errors?.[0].extensions.code).toBe('NOT_FOUND');
      const invalid = await w.gql('mutation { createPost(data: { views: 1 }) { uuid } }');
      expect(invalid.body.errors?.[0].extensions.code).toBe('VALIDATION_FAILED');
      expect(error).not.toHaveBeenCalled();
      const codes = debug.mock.calls.map((c) => (c[0] as { code?: string }).code).filter(Boolean);
      expect(codes).toEqual(expect.arrayContaining(['FORBIDDEN', 'NOT_FOUND', 'VALIDATION_FAILED']));
      expect(JSON.stringify(debug.mock.calls)).not.toMatch(/\n\s+at /);
    } finally {
      error.mockRestore();
      debug.mockRestore();
    }
  });

  it('logs an unexpected failure at error with the error itself', async () => {
    const error = vi.spyOn(t.services.log, 'error');
    const original = t.database.prisma.$queryRaw.bind(t.database.prisma);
    const failure = () => Promise.reject(new Error('boom in SQL'));
    (t.database.prisma as unknown as { $queryRaw: unknown }).$queryRaw = failure;
    // Reads outside a transaction go through plain SQL (src/entries/reads/read-rows.ts); authentication must still pass.
    const query = t.database.query;
    t.database.query = ((sql: string, ...rest: unknown[]) => (sql.includes('FROM entries e') ? failure() : (query as (...a: unknown[]) => unknown).call(t.database, sql, ...rest))) as typeof query;
    try {
      const res = await w.gql('{ posts { data { uuid } } }');
      expect(res.body.errors?.[0].extensions.code).toBe('INTERNAL_SERVER_ERROR');
      expect(error).toHaveBeenCalled();
      expect(JSON.stringify(error.mock.calls[0]?.[0] ?? null)).toMatch(/boom in SQL/);
    } finally {
      t.database.query = query;
      (t.database.prisma as unknown as { $queryRaw: unknown }).$queryRaw = original;
      error.mockRestore();
    }
  });
});
