import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditServer, type AuditResult } from 'graphql-http';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { typedWorld, type TypedWorld } from './typed-world.ts';
import { injectFetch } from './inject-fetch.ts';

/** The graphql-http server audit against /graphql with a project's headers (issue 17, "GraphQL over HTTP"). */
describe('GraphQL over HTTP audit (graphql-http auditServer)', () => {
  let t: TestApp;
  let w: TypedWorld;
  let results: AuditResult[];
  beforeAll(async () => {
    t = await startTestApp({ embedded: true });
    w = await typedWorld(t, 'Audit');
    results = await auditServer({ url: 'http://localhost/graphql', fetchFn: injectFetch(t, w.p.headers) });
  });
  afterAll(() => t.close());

  it('passes every MUST audit', () => {
    const failed = results.filter((r) => r.id && r.name.startsWith('MUST') && r.status !== 'ok');
    expect(failed.flatMap((r) => (r.status === 'ok' ? [] : [`${r.name}: ${r.reason}`]))).toEqual([]);
    expect(results.filter((r) => r.name.startsWith('MUST')).length).toBeGreaterThan(10);
  });

  it('passes every SHOULD and MAY audit, as docs/graphql.md lists them (PRINT_AUDIT=1 prints them)', () => {
    const others = results.filter((r) => !r.name.startsWith('MUST'));
    if (process.env.PRINT_AUDIT) console.log(others.map((r) => `${r.status} ${r.name}`).join('\n'));
    // A SHOULD given up on purpose goes into docs/graphql.md's list with its reason, and out of here.
    expect(others.flatMap((r) => (r.status === 'ok' ? [] : [`${r.name}: ${r.reason}`]))).toEqual([]);
    expect(others.filter((r) => r.name.startsWith('SHOULD')).length).toBeGreaterThan(15);
  });
});
