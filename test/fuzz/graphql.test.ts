import fc from 'fast-check';
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { TIMEOUT, expectConsistentDatabase, expectSane, fuzzParams, fuzzWorld } from './harness.ts';

/**
 * Random GraphQL documents within the schema the server serves the project (core + typed): random
 * root fields, random argument values (right and wrong types), random selections up to depth 3. Only
 * data or client errors may come back; an INTERNAL_SERVER_ERROR counts as a 500.
 */

interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
interface InputValue {
  name: string;
  type: TypeRef;
}
interface FieldInfo {
  name: string;
  args: InputValue[];
  type: TypeRef;
}
interface TypeInfo {
  kind: string;
  name: string;
  fields: FieldInfo[] | null;
  inputFields: InputValue[] | null;
  enumValues: Array<{ name: string }> | null;
  possibleTypes: Array<{ name: string }> | null;
}

const named = (t: TypeRef): TypeRef => (t.ofType ? named(t.ofType) : t);

function makeArbitraries(types: Map<string, TypeInfo>, strings: string[]) {
  const wrong = fc.constantFrom('"x"', '1', '-2147483649', '1.5', 'true', 'null', '[]', '{}', '"' + 'y'.repeat(3000) + '"', 'BOGUS_ENUM');

  const literal = (t: TypeRef, depth: number): fc.Arbitrary<string> => {
    if (t.kind === 'NON_NULL') return literal(t.ofType!, depth);
    if (t.kind === 'LIST') return fc.array(literal(t.ofType!, depth + 1), { maxLength: depth > 2 ? 0 : 3 }).map((xs) => `[${xs.join(', ')}]`);
    const info = types.get(t.name!);
    switch (info?.kind) {
      case 'ENUM':
        return fc.constantFrom(...(info.enumValues ?? []).map((v) => v.name), 'NOPE');
      case 'INPUT_OBJECT': {
        if (depth > 2) return fc.constant('{}');
        const fields = info.inputFields ?? [];
        return fc.subarray(fields, { maxLength: Math.min(4, fields.length) }).chain((chosen) =>
          fc.tuple(...chosen.map((f) => fc.oneof({ weight: 5, arbitrary: literal(f.type, depth + 1) }, { weight: 1, arbitrary: wrong }).map((v) => `${f.name}: ${v}`))).map((parts) => `{ ${parts.join(', ')} }`),
        );
      }
      default:
        switch (t.name) {
          case 'Int':
            return fc.oneof(fc.integer({ min: -5, max: 200 }), fc.integer()).map(String);
          case 'Float':
            return fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => String(n));
          case 'Boolean':
            return fc.boolean().map(String);
          case 'JSON':
            return fc.oneof(fc.constantFrom('{}', '[]', 'null', '1', '"s"', '{ title: { eq: "Post 1" } }', '{ views: { between: [1, 2] } }', '{ or: [{ title: "a" }] }'), fc.string({ maxLength: 8 }).map((s) => JSON.stringify(s)));
          default:
            return fc.oneof(fc.constantFrom(...strings), fc.string({ maxLength: 12 })).map((s) => JSON.stringify(s));
        }
    }
  };

  const args = (field: FieldInfo): fc.Arbitrary<string> => {
    if (field.args.length === 0) return fc.constant('');
    return fc
      .tuple(
        ...field.args.map((a) =>
          fc.oneof(
            { weight: a.type.kind === 'NON_NULL' ? 1 : 3, arbitrary: fc.constant(null) },
            { weight: 6, arbitrary: literal(a.type, 0) },
            { weight: 1, arbitrary: wrong },
          ).map((v) => (v === null ? null : `${a.name}: ${v}`)),
        ),
      )
      .map((parts) => {
        const set = parts.filter((p): p is string => p !== null);
        return set.length ? `(${set.join(', ')})` : '';
      });
  };

  const selection = (typeName: string, depth: number): fc.Arbitrary<string> => {
    const info = types.get(typeName);
    if (!info) return fc.constant('{ __typename }');
    if (info.kind === 'UNION' || info.kind === 'INTERFACE' || depth >= 3) return fc.constant('{ __typename }');
    const fields = info.fields ?? [];
    if (fields.length === 0) return fc.constant('{ __typename }');
    return fc.subarray(fields, { minLength: 1, maxLength: Math.min(4, fields.length) }).chain((chosen) =>
      fc.tuple(...chosen.map((f) => fieldText(f, depth + 1))).map((parts) => `{ ${parts.join(' ')} }`),
    );
  };

  const fieldText = (f: FieldInfo, depth: number): fc.Arbitrary<string> => {
    const inner = named(f.type);
    const leaf = ['SCALAR', 'ENUM'].includes(types.get(inner.name!)?.kind ?? 'SCALAR');
    return fc.tuple(args(f), leaf ? fc.constant('') : selection(inner.name!, depth)).map(([a, s]) => `${f.name}${a}${s ? ` ${s}` : ''}`);
  };

  return { fieldText };
}

describe('fuzz: GraphQL documents', () => {
  let t: TestApp;
  let headers: Record<string, string>;
  let document: fc.Arbitrary<string>;

  beforeAll(async () => {
    t = await startTestApp();
    const w = await fuzzWorld(t);
    headers = w.p.headers;
    const res = await t.graphql(getIntrospectionQuery(), undefined, headers);
    expect(res.body.errors).toBeUndefined();
    const schema = res.body.data.__schema as { types: TypeInfo[]; queryType: { name: string }; mutationType: { name: string } | null };
    const types = new Map(schema.types.map((ty) => [ty.name, ty]));
    const { fieldText } = makeArbitraries(types, [...w.uuids, 'posts', 'authors', 'en', 'de', 'title', 'x']);
    const root = (name: string | undefined, keyword: string) => {
      const fields = (name && types.get(name)?.fields) || [];
      return fields.length ? fc.constantFrom(...fields).chain((f) => fieldText(f, 0)).map((s) => `${keyword} { ${s} }`) : null;
    };
    const q = root(schema.queryType.name, 'query')!;
    const m = root(schema.mutationType?.name, 'mutation');
    const garbage = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('{', '{ posts { data { ... on Nope { x } } } }', 'query { __schema { types { fields { type { ofType { ofType { ofType { name } } } } } } } }', 'query Q($a: Int!) { project { uuid } }', '{ a: project { uuid } b: project { uuid } }'));
    document = m ? fc.oneof({ weight: 5, arbitrary: q }, { weight: 3, arbitrary: m }, { weight: 1, arbitrary: garbage }) : fc.oneof(q, garbage);
  });
  afterAll(async () => t?.close());

  it('answers random documents with data or client errors, never an internal error', async () => {
    await fc.assert(
      fc.asyncProperty(document, async (query) => {
        const res = await t.request({ method: 'POST', url: '/graphql', headers, body: { query } });
        expectSane(res, query);
        const internal = (res.body?.errors ?? []).filter((e: { extensions?: { code?: string } }) => e.extensions?.code === 'INTERNAL_SERVER_ERROR');
        if (internal.length) expectSane({ status: 500, text: res.text }, query);
      }),
      fuzzParams(),
    );
    await expectConsistentDatabase(t);
  }, TIMEOUT);
});
