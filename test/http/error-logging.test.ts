import { Writable } from 'node:stream';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openPostgres, type Database } from '../../src/db/client.ts';
import { loadConfig } from '../../src/config.ts';
import { createServices, type AppServices } from '../../src/services.ts';
import { buildServer } from '../../src/http/server.ts';
import { createProject } from '../../src/projects/operations.ts';
import { issueToken } from '../../src/auth/tokens.ts';
import { createTestDatabase } from '../helpers/pg.ts';

/**
 * What the REST surface logs, read from the log stream itself (LOG_LEVEL=debug, so nothing is
 * filtered): client errors at info without a stack, server faults at error with one, and a database
 * data exception that validation let through answered 422 but logged at error as a bug.
 */
interface LogLine {
  level: number;
  msg: string;
  err?: { stack?: string };
  status?: number;
  sqlState?: string;
}
const ERROR = 50;
const INFO = 30;

describe('REST error logging and the data-exception mapping', () => {
  let lines: LogLine[];
  let database: Database;
  let services: AppServices;
  let app: FastifyInstance;
  let drop: () => Promise<void>;
  let headers: Record<string, string>;
  let readOnly: Record<string, string>;

  beforeAll(async () => {
    lines = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as LogLine);
        done();
      },
    });
    const created = await createTestDatabase();
    drop = created.drop;
    database = openPostgres(created.url, 3);
    const config = loadConfig(
      { LOG_LEVEL: 'debug', MIGRATE_ON_START: 'false', SEED_DEMO: 'false', WORKER_IN_PROCESS: 'false', RATE_LIMIT_PER_MINUTE: '100000', AUTH_CACHE_MS: '0' },
      { DATABASE_URL: created.url },
    );
    services = await createServices(config, pino({ level: 'debug' }, sink), { database, authCache: true });
    app = await buildServer(services);
    await app.ready();
    const p = await createProject(database.prisma, { name: 'Logs' });
    const token = async (abilities: string[]) => {
      const t = await issueToken(database.prisma, { projectUuid: p.uuid, abilities, name: 'logs' });
      return { 'project-id': p.uuid, authorization: `Bearer ${t.token}`, 'content-type': 'application/json' };
    };
    headers = await token(['*']);
    readOnly = await token(['read']);
    const res = await app.inject({ method: 'POST', url: '/api/collections', headers, payload: JSON.stringify({ name: 'Posts', slug: 'posts', fields: [{ type: 'text', label: 'Title', name: 'title' }] }) });
    expect(res.statusCode, res.body).toBe(201);
    // Stand-ins for a value validation failed to catch (class 22) and for a genuine server fault.
    await database.query(`
      CREATE FUNCTION test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.data ->> 'title' = 'slips-through' THEN RAISE EXCEPTION 'value out of range' USING ERRCODE = '22003'; END IF;
        IF NEW.data ->> 'title' = 'server-fault' THEN RAISE EXCEPTION 'internal' USING ERRCODE = 'XX000'; END IF;
        RETURN NEW;
      END $$`);
    await database.query(`CREATE TRIGGER test_refuse BEFORE INSERT ON entries FOR EACH ROW EXECUTE FUNCTION test_refuse()`);
  });
  afterAll(async () => {
    await app?.close();
    await services?.close();
    await drop?.();
  });
  beforeEach(() => {
    lines.length = 0;
  });

  const post = (title: string) => app.inject({ method: 'POST', url: '/api/posts', headers, payload: JSON.stringify({ data: { title } }) });
  const errorLines = () => lines.filter((l) => l.level >= ERROR);

  it('logs 403, 404, 422 and 400 at info, without a stack', async () => {
    const answers = await Promise.all([
      app.inject({ method: 'POST', url: '/api/posts', headers: readOnly, payload: JSON.stringify({ data: { title: 'x' } }) }),
      app.inject({ method: 'GET', url: '/api/posts/00000000-0000-4000-8000-000000000000', headers }),
      app.inject({ method: 'GET', url: '/api/nothing-here', headers }),
      app.inject({ method: 'POST', url: '/api/posts', headers, payload: JSON.stringify({ data: 'not an object' }) }),
      app.inject({ method: 'GET', url: '/api/posts?where[title][eq]=%00', headers }),
      app.inject({ method: 'GET', url: '/api/posts/%', headers }),
    ]);
    expect(answers.map((r) => r.statusCode)).toEqual([403, 404, 404, 422, 422, 400]);
    expect(errorLines()).toEqual([]);
    const clientErrors = lines.filter((l) => l.msg === 'client error');
    expect(clientErrors.map((l) => l.status).sort()).toEqual([400, 403, 404, 404, 422, 422]);
    for (const l of clientErrors) {
      expect(l.level).toBe(INFO);
      expect(l.err).toBeUndefined();
      expect(JSON.stringify(l)).not.toContain('    at ');
    }
  });

  it("logs a GraphQL client's variable error below error level", async () => {
    const query = 'query($n: Int, $w: JSON) { entries(collection: "posts", perPage: $n, where: $w) { total } }';
    const answers = await Promise.all([
      app.inject({ method: 'POST', url: '/graphql', headers, payload: JSON.stringify({ query, variables: { n: 'many' } }) }),
      app.inject({ method: 'POST', url: '/graphql', headers, payload: JSON.stringify({ query, variables: { n: 2 ** 40 } }) }),
      app.inject({ method: 'POST', url: '/graphql', headers, payload: JSON.stringify({ query: 'query($n: Int!) { entries(collection: "posts", perPage: $n) { total } }', variables: {} }) }),
      // A wrong scalar inside a typed input object: graphql-js wraps the scalar's own error.
      app.inject({ method: 'POST', url: '/graphql', headers, payload: JSON.stringify({ query: 'mutation($n: PostInput!) { createPost(data: $n) { uuid } }', variables: { n: { title: 5 } } }) }),
      app.inject({ method: 'POST', url: '/graphql', headers, payload: JSON.stringify({ query: 'mutation($n: PostInput!) { createPost(data: $n) { uuid } }', variables: { n: { title: { a: 1 } } } }) }),
    ]);
    for (const res of answers) expect(res.json().errors[0].message).toMatch(/^Variable "\$n"/);
    expect(errorLines()).toEqual([]);
    expect(lines.filter((l) => l.msg === 'graphql client error' && /^Variable "\$n"/.test((l as { message?: string }).message ?? ''))).toHaveLength(2);
  });

  it('answers a PostgreSQL data exception with 422 and logs it at error as a bug', async () => {
    const res = await post('slips-through');
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ message: expect.stringContaining('out of range or not valid text') });
    const [bug, ...rest] = errorLines();
    expect(rest).toEqual([]);
    expect(bug.msg).toMatch(/^bug: a database data exception/);
    expect(bug.sqlState).toBe('22003');
    expect(bug.err?.stack).toBeTruthy();
    expect(await database.query(`SELECT 1 FROM entries WHERE data ->> 'title' = 'slips-through'`)).toEqual([]);
  });

  it('answers the same data exception on GraphQL with VALIDATION_FAILED', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/graphql',
      headers,
      payload: JSON.stringify({ query: 'mutation($d: JSON!) { createEntry(collection: "posts", data: $d) { uuid } }', variables: { d: { title: 'slips-through' } } }),
    });
    const body = res.json();
    expect(body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', status: 422 });
  });

  it('logs a server fault at error, with its stack, and answers a masked 500', async () => {
    const res = await post('server-fault');
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ message: 'Server Error' });
    const [fault] = errorLines();
    expect(fault.msg).toBe('unhandled error');
    expect(fault.err?.stack).toContain('    at ');
  });
});
