import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestProject } from '../helpers/app.ts';
import { LOCAL_HEADERS_FILE, saveLocalGraphiqlHeaders } from '../../src/graphql/graphiql/page.ts';

/**
 * Which headers GraphiQL starts with. The first start's real headers are offered only to a browser on
 * this machine opening an embedded install's page itself; every other way of reaching the page gets
 * placeholders, and no response carrying a token may be cached.
 */

interface PageConfig {
  options: { defaultQuery?: string; headers?: string; defaultHeaders?: string; shouldPersistHeaders?: boolean };
  workers: Record<string, string>;
}

function pageConfig(html: string): PageConfig {
  const m = /<script type="application\/json" id="graphiql-config">(.*?)<\/script>/s.exec(html);
  if (!m) throw new Error(`no GraphiQL config in:\n${html}`);
  return JSON.parse(m[1]) as PageConfig;
}

const PLACEHOLDERS = { 'project-id': '<project uuid>', Authorization: 'Bearer <token>' };

async function tempDir(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'cms-graphiql-'));
}

describe('GraphiQL headers', () => {
  let t: TestApp;
  let p: TestProject;
  let dataDir: string;
  let real: Record<string, string>;

  beforeAll(async () => {
    dataDir = await tempDir();
    t = await startTestApp({ embedded: true, config: { DATA_DIR: dataDir } });
    p = await t.project({ name: 'GraphiQL' });
    await saveLocalGraphiqlHeaders(dataDir, p.uuid, p.token);
    real = { 'project-id': p.uuid, Authorization: `Bearer ${p.token}` };
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** The GraphiQL page as a browser on `remoteAddress` asking with `headers` gets it. */
  async function open(headers: Record<string, string> = {}, remoteAddress = '127.0.0.1') {
    const res = await t.app.inject({ method: 'GET', url: '/graphql', remoteAddress, headers: { accept: 'text/html', host: '127.0.0.1:4000', ...headers } });
    expect(res.statusCode).toBe(200);
    return { res, config: pageConfig(res.body) };
  }

  it('keeps the first start headers in a file only its owner can read', async () => {
    const file = path.join(dataDir, LOCAL_HEADERS_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(real);
  });

  it('a browser on this machine gets the example query and the real headers, in the first tab and in new ones', async () => {
    for (const host of ['127.0.0.1:4000', 'localhost:4000', '[::1]:4000', 'localhost']) {
      const { res, config } = await open({ host, 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' });
      expect(config.options.defaultQuery).toContain('query Project');
      expect(JSON.parse(config.options.headers!)).toEqual(real);
      expect(JSON.parse(config.options.defaultHeaders!)).toEqual(real);
      expect(config.options.shouldPersistHeaders).toBe(true);
      expect(res.headers['cache-control']).toBe('no-store');
    }
    const same = await open({ host: 'localhost:4000', origin: 'http://localhost:4000', 'sec-fetch-site': 'same-origin' });
    expect(JSON.parse(same.config.options.headers!)).toEqual(real);
  });

  it.each([
    ['another machine', {}, '203.0.113.7'],
    ['another machine over IPv6', {}, '2001:db8::1'],
    ['a reverse proxy on this host (X-Forwarded-For)', { 'x-forwarded-for': '203.0.113.7' }, '127.0.0.1'],
    ['a reverse proxy on this host (Forwarded)', { forwarded: 'for=203.0.113.7' }, '127.0.0.1'],
    ['a name rebound to 127.0.0.1 (Host)', { host: 'attacker.example:4000' }, '127.0.0.1'],
    ['a script on another site (Origin)', { origin: 'http://attacker.example' }, '127.0.0.1'],
    ['a script on another site (Sec-Fetch-Site)', { 'sec-fetch-site': 'cross-site' }, '127.0.0.1'],
  ])('%s gets placeholders and never the token', async (_name, headers, remoteAddress) => {
    const { res, config } = await open(headers, remoteAddress);
    expect(JSON.parse(config.options.headers!)).toEqual(PLACEHOLDERS);
    expect(JSON.parse(config.options.defaultHeaders!)).toEqual(PLACEHOLDERS);
    expect(res.body).not.toContain(p.token);
    expect(config.options.defaultQuery).toContain('query Project');
  });

  it('a PostgreSQL install never offers them, even with the file in DATA_DIR', async () => {
    const pg = await startTestApp({ config: { DATA_DIR: dataDir } });
    try {
      const res = await pg.app.inject({ method: 'GET', url: '/graphql', headers: { accept: 'text/html', host: 'localhost:4000' } });
      expect(JSON.parse(pageConfig(res.body).options.headers!)).toEqual(PLACEHOLDERS);
      expect(res.body).not.toContain(p.token);
    } finally {
      await pg.close();
    }
  });

  it('an install without the file (or with a damaged one) gets placeholders', async () => {
    const empty = await tempDir();
    const other = await startTestApp({ embedded: true, config: { DATA_DIR: empty } });
    const placeholders = async () => {
      const res = await other.app.inject({ method: 'GET', url: '/graphql', headers: { accept: 'text/html', host: 'localhost:4000' } });
      expect(res.statusCode).toBe(200);
      expect(JSON.parse(pageConfig(res.body).options.headers!)).toEqual(PLACEHOLDERS);
    };
    try {
      await placeholders();
      await writeFile(path.join(empty, LOCAL_HEADERS_FILE), '{"project-id": "not a uuid", "Authorization": "Bearer x"}');
      await placeholders();
      await writeFile(path.join(empty, LOCAL_HEADERS_FILE), 'not json');
      await placeholders();
    } finally {
      await other.close();
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe('GraphiQL after a real first start (npm start, embedded)', () => {
  let child: ChildProcess | undefined;
  let dataDir: string;
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('opens on this machine with the demo project headers the first start created', async () => {
    dataDir = await tempDir();
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', WORKER_IN_PROCESS: 'false', LOG_LEVEL: 'info' };
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
    const started = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: path.resolve(import.meta.dirname, '../..'), env, stdio: ['ignore', 'ignore', 'pipe'] });
    child = started;
    let err = '';
    const url = await new Promise<string>((resolve, reject) => {
      started.stderr!.on('data', (d) => {
        err += d;
        const m = /"address":"(http:\/\/[^"]+)".*"msg":"listening"/.exec(err);
        if (m) resolve(m[1]);
      });
      started.once('exit', (code) => reject(new Error(`server exited (${code}):\n${err}`)));
    });

    const file = path.join(dataDir, LOCAL_HEADERS_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const headers = JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
    // They are the demo project's working headers...
    const answer = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ project { name } }' }),
    });
    expect(await answer.json()).toEqual({ data: { project: { name: 'Demo project' } } });
    // ...and GraphiQL opened from this machine starts with them.
    const page = await fetch(`${url}/graphql`, { headers: { accept: 'text/html' } });
    expect(JSON.parse(pageConfig(await page.text()).options.headers!)).toEqual(headers);
  }, 180_000);
});
