import { createRequire } from 'node:module';
import type { GraphQLSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builder } from '../../src/graphql/schema/common/builder.ts';
import { EntryWhereInput, toWhereObject } from '../../src/graphql/schema/core/entry/where.ts';
import { AppError } from '../../src/errors.ts';
import { postsWorld } from './fixture.ts';
import type { FilterWorld } from './world.ts';

/**
 * The GraphQL form of the filter: a schema holding EntryWhereInput (on a probe field that echoes
 * the converted object), executed by graphql-js, then compiled by the same compiler as REST.
 */
// Vite would hand this file graphql's ESM build while Pothos builds with the CommonJS one; graphql-js
// refuses to mix the two, so the test takes the same build Pothos uses.
const { graphql, printType } = createRequire(import.meta.url)('graphql') as typeof import('graphql');

let w: FilterWorld;
let schema: GraphQLSchema;

beforeAll(async () => {
  builder.queryField('whereProbe', (t) =>
    t.field({ type: 'JSON', args: { where: t.arg({ type: [EntryWhereInput] }) }, resolve: (_root, args) => toWhereObject(args.where) ?? null }),
  );
  builder.mutationField('whereProbeNoop', (t) => t.boolean({ resolve: () => true }));
  schema = builder.toSchema();
  w = await postsWorld();
});
afterAll(() => w?.close());

async function convert(where: unknown): Promise<unknown> {
  const res = await graphql({ schema, source: 'query($where: [EntryWhereInput!]) { whereProbe(where: $where) }', variableValues: { where } });
  if (res.errors?.length) throw res.errors[0].originalError ?? res.errors[0];
  return (res.data as { whereProbe: unknown }).whereProbe;
}

describe('GraphQL EntryWhereInput', () => {
  it('has the documented shape', () => {
    const sdl = printType(schema.getType('EntryWhereInput')!);
    for (const f of ['field: String', 'eq: JSON', 'notIn: [JSON!]', 'between: [JSON!]', 'null: Boolean', 'related: [EntryWhereInput!]', 'or: [[EntryWhereInput!]!]', 'and: [[EntryWhereInput!]!]']) {
      expect(sdl).toContain(f);
    }
  });

  it('converts to the REST object shape', async () => {
    expect(await convert([{ field: 'title', like: 'hello' }, { field: 'views', gt: 5, lte: '20' }])).toEqual({
      title: { like: 'hello' },
      views: { gt: 5, lte: '20' },
    });
    expect(await convert([{ or: [[{ field: 'title', eq: 'a' }], [{ field: 'views', in: [1, 2] }]] }])).toEqual({
      or: [{ title: { eq: 'a' } }, { views: { in: [1, 2] } }],
    });
    expect(await convert([{ field: 'author', notNull: true, related: [{ field: 'name', like: 'ann' }] }])).toEqual({
      author: { not_null: true, name: { like: 'ann' } },
    });
    // Two conditions on one field do not overwrite each other.
    expect(await convert([{ field: 'title', like: 'o' }, { field: 'title', like: 'd' }])).toEqual({
      title: { like: 'o' },
      and: [{ title: { like: 'd' } }],
    });
  });

  const CASES: Array<[string, unknown[], string[], string[]]> = [
    ['text like', [{ field: 'title', like: 'HELLO' }], ['p1'], ['p1']],
    ['number range from JSON numbers', [{ field: 'views', gt: 5, lt: 15 }], ['p1'], ['p1']],
    ['boolean from a JSON boolean', [{ field: 'active', eq: false }], ['p2'], []],
    ['in from a JSON list', [{ field: 'views', in: [10, -3] }], ['p1', 'p3'], ['p3']],
    ['notBetween', [{ field: 'views', notBetween: [0, 15] }], ['p2', 'p3', 'p4'], ['p3', 'p4']],
    ['null', [{ field: 'title', null: true }], ['p4'], ['p4']],
    ['notNull false means null', [{ field: 'title', notNull: false }], ['p4'], ['p4']],
    ['json eq with an object', [{ field: 'meta', eq: { k: 1 } }], ['p1'], ['p1']],
    ['related', [{ field: 'author', related: [{ field: 'name', like: 'ann' }] }], ['p1'], ['p1']],
    ['or groups', [{ or: [[{ field: 'title', eq: 'third' }], [{ field: 'views', gt: 15 }]] }], ['p2', 'p3'], ['p3']],
    ['and groups', [{ and: [[{ field: 'title', like: 'o' }], [{ field: 'title', like: 'd' }]] }], ['p1', 'p2'], ['p1']],
    ['an empty or list adds no condition', [{ or: [] }, { field: 'views', lt: 0 }], ['p3'], ['p3']],
    ['same field twice', [{ field: 'title', like: 'o' }, { field: 'title', like: 'd' }], ['p1', 'p2'], ['p1']],
  ];

  it.each(CASES)('filters: %s', async (_label, where, draft, published) => {
    const obj = await convert(where);
    expect(await w.match('posts', obj, 'data')).toEqual(draft);
    expect(await w.match('posts', obj, 'published_data')).toEqual(published);
  });

  it('422s like REST, and for conditions without a field or operator', async () => {
    const keyOf = async (where: unknown[], compile = true) => {
      try {
        const obj = await convert(where);
        if (compile) await w.match('posts', obj);
        return null;
      } catch (err) {
        expect(err).toBeInstanceOf(AppError);
        expect((err as AppError).status).toBe(422);
        return Object.keys((err as AppError).errors ?? {});
      }
    };
    expect(await keyOf([{ field: 'views', gt: 'abc' }])).toEqual(['where.views.gt']);
    expect(await keyOf([{ field: 'views', like: '1' }])).toEqual(['where.views.like']);
    expect(await keyOf([{ eq: 'x' }])).toEqual(['where.0.field']);
    expect(await keyOf([{ field: '__proto__', eq: 'x' }])).toEqual(['where.__proto__']);
    expect(await keyOf([{ field: 'title' }])).toEqual(['where.0.field']);
  });
});
