import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClientSchema, getIntrospectionQuery, parse, printSchema, type IntrospectionQuery } from 'graphql';
import { codegen } from '@graphql-codegen/core';
import * as operationsPlugin from '@graphql-codegen/typescript-operations';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { typedWorld, type TypedWorld } from './typed-world.ts';
import { typecheckStrict } from '../rest/openapi-tools.ts';

/** GraphQL Code Generator over a project's typed schema, as a frontend would run it (no network). */
describe("GraphQL Code Generator over a project's typed schema (PGlite)", () => {
  let t: TestApp;
  let w: TypedWorld;
  beforeAll(async () => {
    t = await startTestApp({ embedded: true });
    w = await typedWorld(t, 'Codegen');
  });
  afterAll(() => t.close());

  it('generates operation types that a strict TypeScript client compiles against', async () => {
    const introspection = (await w.ok(getIntrospectionQuery())) as IntrospectionQuery;
    const schema = buildClientSchema(introspection);
    const document = parse(`
      query PostPage($views: Float) {
        posts(where: { views: { gt: $views } }, perPage: 10) {
          data { uuid state title views status createdAt author { name } }
          pageInfo { total hasNextPage }
        }
      }
      query OnePost($uuid: ID!) { post(uuid: $uuid, translationLocale: "de") { uuid state locale } }
    `);
    const output = await codegen({
      schema: parse(printSchema(schema)),
      documents: [{ document }],
      filename: 'graphql.ts',
      config: { scalars: { DateTime: 'string', JSON: 'unknown' }, enumsAsTypes: true },
      // typescript-operations 5+ emits the enums and inputs the operations use by itself.
      plugins: [{ typescriptOperations: {} }],
      pluginMap: { typescriptOperations: operationsPlugin },
    });
    const client = `
import type { PostPageQuery, OnePostQuery, ContentState } from './graphql';
declare const page: PostPageQuery;
const rows = page.posts?.data ?? [];
const titles: Array<string | null | undefined> = rows.map((p) => p.title);
const states: ContentState[] = rows.map((p) => p.state);
const more: boolean | undefined = page.posts?.pageInfo.hasNextPage;
declare const one: OnePostQuery;
const locale: string | undefined = one.post?.locale;
// @ts-expect-error views is a number
const bad: string | null | undefined = rows[0]?.views;
export { titles, states, more, locale, bad };
`;
    const r = await typecheckStrict({ 'graphql.ts': output, 'client.ts': client }, 'client.ts');
    expect(r.output).toBe('');
    expect(r.ok).toBe(true);
  }, 120_000);
});
