import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../../src/auth/tokens.ts';
import { posts, world, type World } from '../../helpers/world.ts';
import { PNG, upload } from '../../assets/helpers.ts';

/**
 * deploy/varnish.vcl in front of a test app, with Debian's varnishd and varnish-modules' xkey
 * (.ci/run installs them): delivery-token reads are kept and purged by tag, nothing else is kept.
 * Between Varnish and the app sits a counting relay, so "served by Varnish" means "the API never saw it".
 */
const VARNISHD = ['/usr/sbin/varnishd', '/usr/bin/varnishd'].find((p) => existsSync(p));
if (!VARNISHD) console.warn('test/edge/cdn/varnish.test.ts skipped: varnishd is missing (apt-get install varnish varnish-modules; .ci/run does)');

const freePort = () =>
  new Promise<number>((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => ok(port));
    });
  });

describe.skipIf(!VARNISHD)('Varnish in front of delivery tokens (deploy/varnish.vcl)', () => {
  let w: World;
  let varnish: ChildProcess;
  let relay: Server;
  let workdir: string;
  let base: string;
  const reached = new Map<string, number>();
  let delivery: Record<string, string>;
  let reader: Record<string, string>;
  let a: string;
  let b: string;

  const viaVarnish = async (path: string, headers: Record<string, string>) => {
    const res = await fetch(`${base}${path}`, { headers });
    return { status: res.status, headers: res.headers, body: (await res.json().catch(() => null)) as any };
  };

  /** The purges the API sent (through the relay, to Varnish), with Varnish's answer. */
  const purges: Array<{ tags: string[]; status: number }> = [];
  const purgeWaiters: Array<() => void> = [];
  /** Resolves once Varnish answered a purge naming `tag`, counting from purge number `from`. */
  const purged = (tag: string, from = 0) =>
    new Promise<void>((ok) => {
      const check = () => (purges.slice(from).some((p) => p.status === 200 && p.tags.includes(tag)) ? ok() : purgeWaiters.push(check));
      check();
    });

  beforeAll(async () => {
    const varnishPort = await freePort();
    base = `http://127.0.0.1:${varnishPort}`;
    let appPort = 0;
    // API requests from Varnish go to the app and are counted; the API's purges go to Varnish and are recorded.
    relay = createServer((req, res) => {
      const purge = req.method === 'PURGE';
      if (!purge) reached.set(req.url ?? '', (reached.get(req.url ?? '') ?? 0) + 1);
      const up = httpRequest({ host: '127.0.0.1', port: purge ? varnishPort : appPort, path: req.url, method: req.method, headers: req.headers }, (r) => {
        if (purge) {
          purges.push({ tags: String(req.headers['xkey-softpurge'] ?? '').split(' '), status: r.statusCode ?? 0 });
          purgeWaiters.splice(0).forEach((wake) => wake());
        }
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.writeHead(502).end());
      req.pipe(up);
    });
    await new Promise<void>((ok) => relay.listen(0, '127.0.0.1', ok));
    const relayPort = (relay.address() as AddressInfo).port;
    w = await world({ app: { env: { EDGE_PURGE: 'varnish', VARNISH_PURGE_URLS: `http://127.0.0.1:${relayPort}`, EDGE_PURGE_DELAY_MS: '0', EDGE_MAX_AGE: '600' } } });
    await w.t.app.listen({ port: 0, host: '127.0.0.1' });
    appPort = (w.t.app.server.address() as AddressInfo).port;

    workdir = await mkdtemp(join(tmpdir(), 'cms-varnish-'));
    const vcl = (await readFile(new URL('../../../deploy/varnish.vcl', import.meta.url), 'utf8')).replace('.host = "proxy";', '.host = "127.0.0.1";').replace('.port = "4000";', `.port = "${relayPort}";`);
    expect(vcl).toContain(`"${relayPort}"`);
    await writeFile(join(workdir, 'test.vcl'), vcl);
    varnish = spawn(VARNISHD!, ['-F', '-j', 'none', '-a', `127.0.0.1:${varnishPort}`, '-f', join(workdir, 'test.vcl'), '-n', join(workdir, 'n'), '-s', 'malloc,32m'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    varnish.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    // Up once it answers (the app's /healthz through it).
    for (let i = 0; ; i++) {
      const ok = await fetch(`${base}/healthz`).then((r) => r.ok, () => false);
      if (ok) break;
      if (i > 400 || varnish.exitCode !== null) throw new Error(`varnishd did not start: ${stderr}`);
      await new Promise((r) => setTimeout(r, 25));
    }

    // Made with Varnish up, so the project purge it causes lands now, not in a later test.
    await w.collection(posts());
    await purged(`p:${w.p.uuid}`);
    const issued = await issueToken(w.t.database.prisma, { projectUuid: w.p.uuid, abilities: 'read', delivery: true, name: 'site' });
    delivery = { 'project-id': w.p.uuid, authorization: `Bearer ${issued.token}` };
    reader = await w.p.tokenWith(['read']);
    a = (await w.api('POST', '/api/posts', { data: { title: 'A one' }, state: 'published' })).body.uuid;
    b = (await w.api('POST', '/api/posts', { data: { title: 'B one' }, state: 'published' })).body.uuid;
    await Promise.all([purged(`e:${a}`), purged(`e:${b}`)]);
  }, 30_000);

  afterAll(async () => {
    varnish?.kill('SIGTERM');
    if (varnish && varnish.exitCode === null) await new Promise((ok) => varnish.once('exit', ok));
    await new Promise((ok) => relay?.close(ok));
    await w?.close();
    if (workdir) await rm(workdir, { recursive: true, force: true });
  });

  it('serves a published read from Varnish on the second request without reaching the API', async () => {
    const first = await viaVarnish(`/api/posts/${a}`, delivery);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-edge-cache')).toBe('MISS');
    expect(first.headers.get('cache-control')).toBe('public, max-age=0, s-maxage=600, stale-while-revalidate=30');
    expect(first.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(first.headers.get('vary')).toMatch(/Authorization, project-id, Accept-Encoding/);
    expect(first.headers.get('surrogate-key')?.split(' ')).toEqual(expect.arrayContaining([`p:${w.p.uuid}`, `c:${w.c.posts.uuid}`, `e:${a}`]));
    const second = await viaVarnish(`/api/posts/${a}`, delivery);
    expect(second.headers.get('x-edge-cache')).toBe('HIT');
    expect(second.body.fields.title).toBe('A one');
    expect(reached.get(`/api/posts/${a}`)).toBe(1);
  });

  it('after a publish of an entry it shows, the next read has the new content within 1 s; other entries stay cached', async () => {
    await viaVarnish(`/api/posts/${b}`, delivery);
    await viaVarnish('/api/posts', delivery);
    expect((await viaVarnish(`/api/posts/${b}`, delivery)).headers.get('x-edge-cache')).toBe('HIT');
    const bReached = reached.get(`/api/posts/${b}`);

    expect((await w.api('PATCH', `/api/posts/${a}`, { data: { title: 'A two' } })).status).toBe(200);
    const from = purges.length;
    expect((await w.api('POST', `/api/posts/${a}/publish`)).status).toBe(200);
    const published = Date.now();
    // The publish's purge, then the next read: within a second of the publish answering.
    await purged(`e:${a}`, from);
    const next = await viaVarnish(`/api/posts/${a}`, delivery);
    expect(next.body.fields.title).toBe('A two');
    expect(Date.now() - published).toBeLessThan(1000);
    expect(purges.slice(from).find((p) => p.tags.includes(`e:${a}`))?.tags).toEqual([`e:${a}`, `l:${w.c.posts.uuid}`]);
    // The listing showed A, so it went too; B's own read did not.
    const list = await viaVarnish('/api/posts', delivery);
    expect(list.body.map((e: { fields: { title: string } }) => e.fields.title).sort()).toEqual(['A two', 'B one']);
    const again = await viaVarnish(`/api/posts/${b}`, delivery);
    expect(again.headers.get('x-edge-cache')).toBe('HIT');
    expect(reached.get(`/api/posts/${b}`)).toBe(bReached);
  });

  it('reads the outbox once per replica: the purger follows the live stream and hears the process change feed, with no LISTEN connection of its own', async () => {
    const rows = await w.t.database.query<{ name: string; n: number }>(
      `SELECT application_name AS name, count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'cms %' GROUP BY 1`,
    );
    const count = new Map(rows.map((r) => [r.name, r.n]));
    expect(count.get('cms live stream')).toBe(1);
    expect(count.get('cms edge purger')).toBeUndefined();
    // One change feed for the process: its caches, the live hub and the purger hear the same one.
    expect(count.get('cms change feed')).toBe(1);
  });

  it('never answers a draft read or a non-delivery token from Varnish', async () => {
    const draftUrl = `/api/posts/${a}?state=draft`;
    for (let i = 0; i < 2; i++) {
      const r = await viaVarnish(draftUrl, delivery);
      expect(r.status).toBe(403);
      expect(r.headers.get('x-edge-cache')).toBe('MISS');
    }
    expect(reached.get(draftUrl)).toBe(2);
    const other = `/api/posts/${b}?locale=en`;
    for (let i = 0; i < 2; i++) {
      const r = await viaVarnish(other, reader);
      expect(r.status).toBe(200);
      expect(r.headers.get('cache-control')).toBe('no-cache');
      expect(r.headers.get('x-edge-cache')).toBe('MISS');
    }
    expect(reached.get(other)).toBe(2);
  });

  it('keeps a delivery token GraphQL GET too, tagged with what it shows', async () => {
    const url = `/graphql?query=${encodeURIComponent(`{ posts { data { title } } }`)}`;
    const first = await viaVarnish(url, { ...delivery, accept: 'application/json' });
    expect(first.status).toBe(200);
    expect(first.headers.get('surrogate-key')?.split(' ')).toEqual(expect.arrayContaining([`p:${w.p.uuid}`, `l:${w.c.posts.uuid}`, `e:${a}`, `e:${b}`]));
    expect(first.headers.get('vary')).toMatch(/Accept/);
    const second = await viaVarnish(url, { ...delivery, accept: 'application/json' });
    expect(second.headers.get('x-edge-cache')).toBe('HIT');
    expect(reached.get(url)).toBe(1);
  });

  it('purges the answers showing an asset when its metadata changes, from the process that changed it', async () => {
    const from = purges.length;
    await w.api('POST', '/api/collections', { name: 'Galleries', slug: 'galleries', fields: [{ type: 'media', label: 'Cover', name: 'cover', options: { media: { type: 1 } } }] });
    await purged(`p:${w.p.uuid}`, from);
    const asset = (await upload(w.t, w.p.headers, { filename: 'cover.png', contentType: 'image/png', content: PNG })).body;
    const gallery = (await w.api('POST', '/api/galleries', { state: 'published', data: { cover: asset.uuid } })).body.uuid as string;
    await purged(`e:${gallery}`, from);
    const url = `/api/galleries/${gallery}`;
    const first = await viaVarnish(url, delivery);
    expect(first.headers.get('surrogate-key')?.split(' ')).toContain(`a:${asset.uuid}`);
    expect((await viaVarnish(url, delivery)).headers.get('x-edge-cache')).toBe('HIT');

    const before = purges.length;
    expect((await w.api('PATCH', '/api/files/bulk/metadata', { items: [{ uuid: asset.uuid, alt_text: 'A cover' }] })).status).toBe(200);
    await purged(`a:${asset.uuid}`, before);
    const next = await viaVarnish(url, delivery);
    expect(next.body.fields.cover.metadata).toMatchObject({ alt_text: 'A cover' });
    expect(reached.get(url)).toBe(2);
  });
});
