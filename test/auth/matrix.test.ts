import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphQLSchema } from 'graphql';
import { allRoutes } from '../../src/rest/index.ts';
import type { RouteDef } from '../../src/rest/route.ts';
import { multipartRoutes } from '../../src/rest/asset-routes.ts';
import { ABILITIES, type Ability } from '../../src/abilities.ts';
import { schema as coreSchema } from '../../src/graphql/schema/core/index.ts';
import { loadCollectionBySlug } from '../../src/collections/model.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { BAD_TOKEN, GRANTS, createWorld, expectedFor, type Grant, type MatrixWorld } from './matrix-fixture.ts';
import { graphqlOutcome, rootOperations, type RootOperation } from './graphql-operations.ts';

/**
 * The authorization matrix: every REST route of `allRoutes` (the table the router is built from) and
 * every GraphQL root field × {no project header, bad token, another project's token, each single
 * ability, `*`}. Expected statuses come from the route's `ability`/`auth` and the field's `ability`
 * extension, so a new route or field is covered (or fails here) without anyone adding a case.
 *
 * Denials run against one shared world; each allowed call gets a fresh world, since holding the
 * ability lets the call change or delete what later calls address.
 */

const isAbility = (v: unknown): v is Ability => typeof v === 'string' && (ABILITIES as readonly string[]).includes(v);
const DENIED = new Set([400, 401, 403]);

let t: TestApp;
let world: MatrixWorld;
let stranger: Record<string, string>;

beforeAll(async () => {
  // With the in-process authentication cache on, as in production: a token's cached success must
  // never answer for another token, another project or a missing ability.
  t = await startTestApp({ env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', AUTH_CACHE_MS: '60000' } });
  world = await createWorld(t);
  stranger = (await t.project({ name: 'Stranger' })).headers;
});
afterAll(async () => {
  await t?.close();
});

function urlOf(route: RouteDef, params: Record<string, string>): string {
  return route.url.replace(/:(\w+)/g, (_m, name: string) => {
    if (!(name in params)) throw new Error(`${route.method} ${route.url}: the matrix world has no value for :${name}; add one to matrix-fixture.ts`);
    return encodeURIComponent(params[name]);
  });
}

async function callRoute(route: RouteDef, w: MatrixWorld, headers: Record<string, string>) {
  // Upload routes take multipart/form-data only (a JSON body is 415 before anything else): an empty form.
  if (multipartRoutes.includes(route)) {
    return t.request({ method: route.method, url: urlOf(route, w.params), headers: { ...headers, 'content-type': 'multipart/form-data; boundary=x' }, payload: '--x--\r\n' });
  }
  const hasBody = route.method !== 'GET';
  return t.request({ method: route.method, url: urlOf(route, w.params), headers, body: hasBody ? {} : undefined });
}

const routeName = (r: RouteDef) => `${r.method} ${r.url}`;
// End-user auth routes (/api/auth/*) take no CMS token; test/users/ covers who may call them.
const protectedRoutes = allRoutes.filter((r) => r.auth !== false && r.auth !== 'enduser');

describe('REST authorization matrix', () => {
  it('declares an ability on every authenticated route', () => {
    const missing = protectedRoutes.filter((r) => !isAbility(r.ability)).map(routeName);
    expect(missing).toEqual([]);
  });

  it.each(protectedRoutes.map((r) => [routeName(r), r] as const))('%s: denials', async (_name, route) => {
    const ability = route.ability as Ability;
    const outcomes: Record<string, number> = {};
    const want: Record<string, number> = {};
    const { authorization } = world.tokens['*'];
    outcomes['no project header'] = (await callRoute(route, world, { authorization })).status;
    want['no project header'] = 400;
    outcomes['bad token'] = (await callRoute(route, world, { 'project-id': world.projectUuid, authorization: BAD_TOKEN })).status;
    want['bad token'] = 401;
    outcomes["another project's token"] = (await callRoute(route, world, { 'project-id': world.projectUuid, authorization: stranger.authorization })).status;
    want["another project's token"] = 401;
    for (const grant of GRANTS) {
      if (expectedFor(grant, ability) === null) continue;
      outcomes[grant] = (await callRoute(route, world, world.tokens[grant])).status;
      want[grant] = 403;
    }
    expect(outcomes).toEqual(want);
  });

  it.each(protectedRoutes.map((r) => [routeName(r), r] as const))('%s: holders pass', async (_name, route) => {
    // The single-ability holder goes first; if its call deletes what the route addresses, `*` then
    // meets a 404, which still proves it got past authentication and authorization.
    const fresh = await createWorld(t);
    for (const grant of GRANTS.filter((g) => expectedFor(g, route.ability as Ability) === null)) {
      const res = await callRoute(route, fresh, fresh.tokens[grant]);
      expect(DENIED.has(res.status) || res.status >= 500, `${grant}: ${res.status} ${res.text}`).toBe(false);
    }
  });
});

/** The core schema plus the typed fields of the world's collections, when the typed schema exists. */
async function fullSchema(projectUuid: string): Promise<GraphQLSchema> {
  const typed = await import('../../src/graphql/schema/typed/build.ts').catch(() => null);
  if (!typed) return coreSchema;
  const project = await t.database.prisma.project.findUniqueOrThrow({ where: { uuid: projectUuid } });
  const posts = await loadCollectionBySlug(t.database.prisma, project.id, 'posts');
  return typed.buildTypedSchema(coreSchema, [posts]);
}

async function servedRootFields(headers: Record<string, string>): Promise<Set<string>> {
  const res = await t.graphql('{ __schema { queryType { fields { name } } mutationType { fields { name } } } }', undefined, headers);
  const s = res.body.data.__schema;
  return new Set([...s.queryType.fields, ...(s.mutationType?.fields ?? [])].map((f: { name: string }) => `${f.name}`));
}

async function run(op: RootOperation, headers: Record<string, string>): Promise<number | string> {
  const res = await t.graphql(op.document, op.variables, headers);
  return graphqlOutcome(res);
}

describe('GraphQL authorization matrix', () => {
  let ops: RootOperation[] = [];
  let served = new Set<string>();
  const coreFields = new Set(rootOperations(coreSchema, {}).map((o) => o.name));

  beforeAll(async () => {
    ops = rootOperations(await fullSchema(world.projectUuid), world.params);
    served = await servedRootFields(world.tokens['*']);
  });

  it('declares an ability extension on every root field', () => {
    expect(ops.length).toBeGreaterThan(0);
    expect(ops.filter((o) => !isAbility(o.ability)).map((o) => `${o.kind} ${o.name}`)).toEqual([]);
  });

  it('runs every root field the server serves for the project', async () => {
    const known = new Set(ops.map((o) => o.name));
    expect([...served].filter((n) => !known.has(n))).toEqual([]);
  });

  it('denies every root field to callers without a project, a valid token or the ability', async () => {
    const failures: string[] = [];
    const { authorization } = world.tokens['*'];
    for (const op of ops.filter((o) => served.has(o.name) && isAbility(o.ability))) {
      const cases: Array<[string, Record<string, string>, number]> = [
        ['no project header', { authorization }, 400],
        ['bad token', { 'project-id': world.projectUuid, authorization: BAD_TOKEN }, 401],
        ["another project's token", { 'project-id': world.projectUuid, authorization: stranger.authorization }, 401],
        ...GRANTS.filter((g) => expectedFor(g, op.ability as Ability) !== null).map((g): [string, Record<string, string>, number] => [g, world.tokens[g], 403]),
      ];
      for (const [label, headers, want] of cases) {
        const got = await run(op, headers);
        // Without a project header the server serves the core schema, where a per-project typed field
        // does not exist: a validation failure rejects it as surely as a 400.
        const unknownWithoutProject = label === 'no project header' && !coreFields.has(op.name) && typeof got === 'string' && got.includes('GRAPHQL_VALIDATION_FAILED');
        if (got !== want && !unknownWithoutProject) failures.push(`${op.kind} ${op.name} / ${label}: want ${want}, got ${got}`);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('lets holders of the ability through on every root field', async () => {
    const failures: string[] = [];
    for (const op of ops.filter((o) => served.has(o.name) && isAbility(o.ability))) {
      const fresh = await createWorld(t);
      const freshOp = rootOperations(await fullSchema(fresh.projectUuid), fresh.params).find((o) => o.name === op.name)!;
      for (const grant of GRANTS.filter((g): g is Grant => expectedFor(g, op.ability as Ability) === null)) {
        const got = await run(freshOp, fresh.tokens[grant]);
        if (typeof got !== 'number' || DENIED.has(got) || got >= 500) failures.push(`${op.kind} ${op.name} / ${grant}: got ${got}`);
      }
    }
    expect(failures).toEqual([]);
  }, 240_000);
});

it('runs with authentications cached in process', async () => {
  await t.request({ method: 'GET', url: '/api/collections', headers: world.tokens['*'] });
  expect(t.services.authCache?.size).toBeGreaterThan(0);
});
