import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getIntrospectionQuery } from 'graphql';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { typedWorld, type TypedWorld } from './typed-world.ts';

/** The query GraphiQL sends to load the schema (every option it may switch on). */
const GRAPHIQL_INTROSPECTION = getIntrospectionQuery({
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  schemaDescription: true,
  inputValueDeprecation: true,
  oneOf: true,
});

/** `n` aliases of the full introspection query in one operation, with the standard fragments. */
function aliasedIntrospection(n: number): string {
  const fragments = GRAPHIQL_INTROSPECTION.slice(GRAPHIQL_INTROSPECTION.indexOf('fragment '));
  const roots = Array.from({ length: n }, (_, i) => `s${i}: __schema { types { ...FullType } directives { name } }`).join('\n');
  return `query Many {\n${roots}\n}\n${fragments}`;
}

const nested = (levels: number) => `{ ${'a { '.repeat(levels)}b${' }'.repeat(levels)} }`;

describe('GraphQL document limits (PGlite)', () => {
  let t: TestApp;
  let w: TypedWorld;
  beforeAll(async () => {
    t = await startTestApp({ embedded: true });
    w = await typedWorld(t, 'Document limits');
  });
  afterAll(() => t.close());

  it('refuses 300 aliased introspections without headers before running them, with a 400 naming the limit', async () => {
    const doc = aliasedIntrospection(300);
    await t.graphql(doc); // the first request of a process also loads code paths; time the second
    const started = performance.now();
    const res = await t.graphql(doc);
    const ms = performance.now() - started;
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors?.[0]).toMatchObject({ extensions: { code: 'QUERY_TOO_MUCH_INTROSPECTION', limit: 1, actual: 300 } });
    expect(res.body.errors?.[0].message).toMatch(/300 introspection fields.*limit is 1/);
    console.info(`[timing] 300 aliased introspections refused in ${ms.toFixed(1)} ms`);
  });

  it('keeps /healthz answering while 20 such requests arrive at once', async () => {
    const doc = aliasedIntrospection(300);
    const health: number[] = [];
    const started = performance.now();
    const attacks = Array.from({ length: 20 }, () => t.graphql(doc));
    const probes = Array.from({ length: 5 }, async () => {
      const s = performance.now();
      const r = await t.request({ method: 'GET', url: '/healthz' });
      health.push(performance.now() - s);
      return r.status;
    });
    const [answers, statuses] = await Promise.all([Promise.all(attacks), Promise.all(probes)]);
    const all = performance.now() - started;
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(400));
    console.info(`[timing] 20 concurrent refusals in ${all.toFixed(1)} ms; /healthz max ${Math.max(...health).toFixed(1)} ms`);
  });

  it('serves the standard GraphiQL introspection query, with and without headers', async () => {
    const anon = await t.graphql(GRAPHIQL_INTROSPECTION);
    expect(anon.status).toBe(200);
    expect(anon.body.errors).toBeUndefined();
    expect(anon.body.data.__schema.types.length).toBeGreaterThan(20);
    const typed = await w.gql(GRAPHIQL_INTROSPECTION);
    expect(typed.body.errors).toBeUndefined();
    expect(typed.body.data.__schema.types.some((x: { name: string }) => x.name === 'Post')).toBe(true);
  });

  it('refuses introspection that expands types through types, or aliases inside introspection', async () => {
    const circular = await t.graphql('{ __schema { types { fields { type { fields { name } } } } } }');
    expect(circular.status).toBe(400);
    expect(circular.body.errors?.[0].extensions.code).toBe('QUERY_TOO_MUCH_INTROSPECTION');
    const viaType = await w.gql('{ __type(name: "Post") { fields { type { fields { name } } } } }');
    expect(viaType.body.errors?.[0].extensions.code).toBe('QUERY_TOO_MUCH_INTROSPECTION');
    const aliased = await t.graphql('{ __schema { a: types { name } b: types { name } } }');
    expect(aliased.body.errors?.[0]).toMatchObject({ extensions: { code: 'QUERY_TOO_MUCH_INTROSPECTION' } });
    expect(aliased.body.errors?.[0].message).toMatch(/Aliases are not allowed/);
    const twoRoots = await w.gql('{ __schema { queryType { name } } __type(name: "Post") { name } }');
    expect(twoRoots.body.errors?.[0].extensions).toMatchObject({ code: 'QUERY_TOO_MUCH_INTROSPECTION', actual: 2 });
  });

  it('refuses more aliases than GRAPHQL_MAX_ALIASES before any list runs, signed in or not', async () => {
    const lists = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `l${i}: entries(collection: "posts", perPage: 1) { data { uuid } }`).join(' ')} }`;
    const ok = await w.gql(lists(30));
    expect(ok.body.errors).toBeUndefined();
    // 1,000 aliases are over the token limit already; 200 fit in it.
    const many = await w.gql(lists(200));
    expect(many.status).toBe(400);
    expect(many.body.data).toBeUndefined();
    expect(many.body.errors?.[0]).toMatchObject({ extensions: { code: 'QUERY_TOO_MANY_ALIASES', limit: 30, actual: 200 } });
    expect(many.body.errors?.[0].message).toMatch(/200 aliases; the limit is 30 \(GRAPHQL_MAX_ALIASES\)/);
    expect((await w.gql(lists(1000))).body.errors?.[0].extensions.code).toBe('QUERY_TOO_LONG');
  });

  it('counts every alias: aliased __typename and aliases inside fragments too', async () => {
    const typenames = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `t${from + i}: __typename`).join(' ');
    expect((await w.gql(`{ ${typenames(30)} }`)).body.errors).toBeUndefined();
    for (const res of [await w.gql(`{ ${typenames(1000)} }`), await t.graphql(`{ ${typenames(1000)} }`)]) {
      expect(res.status).toBe(400);
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors?.[0]).toMatchObject({ extensions: { code: 'QUERY_TOO_MANY_ALIASES', limit: 30, actual: 1000 } });
    }
    // 20 in each of two fragments and 20 beside them: 60, though no selection set holds more than 20.
    const spread = await w.gql(`query { ...F project { ...P } ${typenames(20, 100)} } fragment F on Query { ${typenames(20)} } fragment P on Project { ${typenames(20, 200)} }`);
    expect(spread.status).toBe(400);
    expect(spread.body.errors?.[0]).toMatchObject({ extensions: { code: 'QUERY_TOO_MANY_ALIASES', actual: 60 } });
  });

  it('refuses more directives than GRAPHQL_MAX_DIRECTIVES', async () => {
    const res = await w.gql(`{ project { ${Array.from({ length: 51 }, () => '... @include(if: true) { uuid }').join(' ')} } }`);
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]).toMatchObject({ extensions: { code: 'QUERY_TOO_MANY_DIRECTIVES', limit: 50, actual: 51 } });
  });

  it('refuses a document of more than GRAPHQL_MAX_TOKENS tokens at parse time', async () => {
    const long = `{ ${Array.from({ length: 3000 }, () => 'project { uuid }').join(' ')} }`;
    for (const res of [await w.gql(long), await t.graphql(long)]) {
      expect(res.status).toBe(400);
      expect(res.body.errors?.[0]).toMatchObject({ extensions: { code: 'QUERY_TOO_LONG', limit: 5000 } });
      expect(res.body.errors?.[0].message).toMatch(/5000 tokens \(GRAPHQL_MAX_TOKENS\)/);
    }
  });

  it('answers a document nested thousands of levels deep with 400 and a GraphQL error, never a 500 or INTERNAL', async () => {
    const docs = [nested(5000), nested(250), `{ entries(collection: "posts", where: ${'['.repeat(5000)}1${']'.repeat(5000)}) { total } }`];
    for (const doc of docs) {
      for (const res of [await w.gql(doc), await t.graphql(doc)]) {
        expect(res.status).toBe(400);
        expect(res.body.errors?.[0].extensions.code).toBe('QUERY_TOO_NESTED');
        expect(JSON.stringify(res.body)).not.toMatch(/INTERNAL_SERVER_ERROR|Maximum call stack/);
      }
    }
  });

  it('prices the generic entries list by perPage, as the typed lists', async () => {
    const dear = await w.gql('{ entries(collection: "posts", perPage: 100) { data { uuid id locale state publishedAt createdAt updatedAt isDraftDirty fields } } }');
    expect(dear.body.errors).toBeUndefined();
    const tooDear = await w.gql(
      `{ ${Array.from({ length: 10 }, (_, i) => `l${i}: entries(collection: "posts", perPage: 100) { data { uuid id locale state publishedAt createdAt updatedAt isDraftDirty fields } }`).join(' ')} }`,
    );
    expect(tooDear.status).toBe(400);
    expect(tooDear.body.errors?.[0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 5000 });
  });
});

describe('GraphQL requests without credentials pay from their address budget (PGlite)', () => {
  let t: TestApp;
  beforeAll(async () => {
    // 50 per minute per token: an address without credentials gets a tenth, 5.
    t = await startTestApp({ embedded: true, env: { RATE_LIMIT_PER_MINUTE: '50' } });
  });
  afterAll(() => t.close());

  it('answers 429 once an address has spent its budget, while tokens keep their own', async () => {
    const p = await t.project();
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await t.graphql('{ __schema { queryType { name } } }')).status);
    // Headers that do not authenticate draw from the address budget too (guessing tokens is not free).
    for (let i = 0; i < 2; i++) statuses.push((await t.graphql('{ project { uuid } }', undefined, { 'project-id': p.uuid, authorization: 'Bearer nope' })).status);
    expect(statuses).toEqual([200, 200, 200, 401, 401]);
    const spent = await t.graphql('{ __schema { queryType { name } } }');
    expect(spent.status).toBe(429);
    expect(spent.body.errors?.[0].extensions).toMatchObject({ code: 'RATE_LIMITED' });
    const signedIn = await t.graphql('{ project { uuid } }', undefined, p.headers);
    expect(signedIn.body).toEqual({ data: { project: { uuid: p.uuid } } });
  });
});
