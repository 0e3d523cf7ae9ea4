import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { typedWorld, type TypedWorld } from './typed-world.ts';

describe('GraphQL limits (PGlite)', () => {
  let t: TestApp;
  let w: TypedWorld;
  beforeAll(async () => {
    t = await startTestApp({ embedded: true, env: { GRAPHQL_MAX_DEPTH: '6', GRAPHQL_MAX_COMPLEXITY: '600' } });
    w = await typedWorld(t, 'Limits');
  });
  afterAll(() => t.close());

  it('refuses a query deeper than GRAPHQL_MAX_DEPTH before running it, with QUERY_TOO_DEEP', async () => {
    const ok = await w.gql('{ posts(perPage: 1) { data { author { company { name } } } } }');
    expect(ok.body.errors).toBeUndefined();
    const deep = await w.gql('{ posts(perPage: 1) { data { author { company { name } } versions { nodes { snapshot { meta { locale } } } } } } }');
    expect(deep.status).toBe(400);
    expect(deep.body.errors?.[0]).toMatchObject({ extensions: { code: 'QUERY_TOO_DEEP', actual: 7, limit: 6 } });
    expect(deep.body.data).toBeUndefined();
  });

  it('prices list selections by perPage and refuses what exceeds GRAPHQL_MAX_COMPLEXITY', async () => {
    const cheap = await w.gql('query($n: Int) { posts(perPage: $n) { data { title views } } }', { n: 10 });
    expect(cheap.body.errors).toBeUndefined();
    const dear = await w.gql('query($n: Int) { posts(perPage: $n) { data { title views status tags author { name } } } }', { n: 100 });
    expect(dear.status).toBe(400);
    expect(dear.body.errors?.[0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 600 });
    expect(dear.body.errors?.[0].extensions.actual).toBeGreaterThan(600);
    expect(dear.body.errors?.[0].message).toMatch(/perPage/);
  });

  it('never charges introspection, so GraphiQL can always load the schema', async () => {
    const res = await w.gql('{ __schema { types { name fields { name type { name ofType { name ofType { name ofType { name } } } } } } } }');
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.__schema.types.length).toBeGreaterThan(20);
  });
});

describe('GraphQL with introspection switched off (PGlite)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ embedded: true, env: { GRAPHQL_INTROSPECTION: 'false' } });
  });
  afterAll(() => t.close());

  it('refuses __schema and __type but answers __typename and ordinary queries', async () => {
    const p = await t.project();
    const schema = await t.graphql('{ __schema { types { name } } }', undefined, p.headers);
    expect(schema.body.errors?.[0]).toMatchObject({ extensions: { code: 'INTROSPECTION_DISABLED' } });
    const type = await t.graphql('{ __type(name: "Query") { name } }');
    expect(type.body.errors?.[0].extensions.code).toBe('INTROSPECTION_DISABLED');
    const ok = await t.graphql('{ __typename project { uuid } }', undefined, p.headers);
    expect(ok.body).toEqual({ data: { __typename: 'Query', project: { uuid: p.uuid } } });
  });
});

describe('GraphQL errors never leak internals', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ embedded: true });
  });
  afterAll(() => t.close());

  it('masks unexpected failures as INTERNAL_SERVER_ERROR without stack or SQL', async () => {
    const w = await typedWorld(t, 'Masking');
    // A broken database connection is the kind of failure that carries SQL text and stacks.
    const original = t.database.prisma.$queryRaw.bind(t.database.prisma);
    const failure = () => Promise.reject(new Error('relation "entries" does not exist at SELECT e.id FROM entries e'));
    (t.database.prisma as unknown as { $queryRaw: unknown }).$queryRaw = failure;
    // Reads outside a transaction go through plain pg (src/entries/reads/read-rows.ts); authentication must still pass.
    const query = t.database.query;
    t.database.query = ((sql: string, ...rest: unknown[]) => (sql.includes('FROM entries e') ? failure() : (query as (...a: unknown[]) => unknown).call(t.database, sql, ...rest))) as typeof query;
    try {
      const res = await w.gql('{ posts { data { uuid } } }');
      const text = JSON.stringify(res.body);
      expect(res.body.errors?.[0]).toEqual({ message: 'Unexpected error.', path: ['posts'], extensions: { code: 'INTERNAL_SERVER_ERROR' } });
      expect(text).not.toMatch(/SELECT|entries e|stack|at /);
    } finally {
      t.database.query = query;
      (t.database.prisma as unknown as { $queryRaw: unknown }).$queryRaw = original;
    }
  });
});
