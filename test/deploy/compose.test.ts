import { existsSync, readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createPrivateDatabase } from '../db/private-db.ts';
import { root } from '../cli/subprocess.ts';

interface Service {
  image?: string;
  stop_grace_period?: string;
  build?: unknown;
  command?: string[];
  ports?: unknown[];
  expose?: string[];
  profiles?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test?: string[]; disable?: boolean };
  volumes?: string[];
}

// `merge: true`: the file shares its environment through a YAML merge key (<<: *cms-env), as Compose does.
const compose = parse(readFileSync(`${root}/docker-compose.yml`, 'utf8'), { merge: true }) as { services: Record<string, Service> };
const { app, worker, proxy } = compose.services;

function run(cmd: string[], env: Record<string, string>): Promise<number> {
  return new Promise((done) => {
    execFile(cmd[0] === 'node' ? process.execPath : cmd[0], cmd.slice(1), { cwd: root, env: { ...process.env, LOG_LEVEL: 'silent', ...env }, timeout: 60_000 }, (err) =>
      done(err ? (typeof err.code === 'number' ? err.code : 1) : 0),
    );
  });
}

describe('docker-compose.yml', () => {
  it('API replicas leave webhook delivery to a worker service that always runs with them', () => {
    expect(app.environment?.WORKER_IN_PROCESS).toBe('false');
    expect(worker).toBeDefined();
    expect(worker.profiles).toBeUndefined(); // not opt-in: without it no webhook would be delivered
    expect(worker.environment?.WORKER_IN_PROCESS).toBeUndefined(); // the worker entry point ignores it
    // The image compiles src/ to dist/ (Dockerfile); node runs the compiled worker directly.
    expect(worker.command).toEqual(['node', 'dist/worker/main.js']);
    expect(existsSync(`${root}/${worker.command![1]!.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts')}`)).toBe(true);
    for (const s of [app, worker]) expect(s.environment).toMatchObject({ DATABASE_URL: expect.stringMatching(/^postgresql:\/\//), REDIS_URL: expect.stringMatching(/^redis:\/\//) });
  });

  it('no API replica publishes a fixed host port: only the proxy does, so --scale app=N works', () => {
    expect(app.ports).toBeUndefined();
    expect(app.expose).toContain('4000');
    const publishing = Object.entries(compose.services).filter(([, s]) => s.ports?.length && !s.profiles).map(([name]) => name);
    expect(publishing).toEqual(['proxy']);
    const mount = proxy.volumes?.find((v) => v.endsWith(':/etc/caddy/Caddyfile:ro'));
    expect(mount).toBeDefined();
    const caddyfile = readFileSync(`${root}/${mount!.split(':')[0]}`, 'utf8');
    // The proxy balances over every replica of the app service, found by DNS, on the exposed port.
    expect(caddyfile).toMatch(/dynamic a app 4000\b/);
  });

  it('Varnish is optional (profile edge), runs deploy/varnish.vcl in front of the proxy, and the API purges it only when asked', () => {
    const varnish = compose.services.varnish;
    expect(varnish.profiles).toEqual(['edge']);
    const mount = varnish.volumes?.find((v) => v.endsWith(':/etc/varnish/default.vcl:ro'));
    expect(mount).toBeDefined();
    const vcl = readFileSync(`${root}/${mount!.split(':')[0].replace(/^\.\//, '')}`, 'utf8');
    expect(vcl).toMatch(/\.host = "proxy";\s*\.port = "4000";/);
    expect(vcl).toMatch(/import xkey;/);
    expect(app.environment?.EDGE_PURGE).toBe('${EDGE_PURGE:-none}');
    expect(app.environment?.VARNISH_PURGE_URLS).toBe('${VARNISH_PURGE_URLS:-http://varnish:80}');
  });

  it('a streaming read replica is optional (profile replica): deploy/postgres-standby.sh copies the primary, which accepts password replication, and the API reads it only when told', () => {
    const replica = compose.services['postgres-replica'];
    expect(replica.profiles).toEqual(['replica']);
    expect(replica.image).toBe(compose.services.postgres.image);
    const script = replica.volumes?.find((v) => v.startsWith('./deploy/postgres-standby.sh:'));
    expect(script).toBeDefined();
    const body = readFileSync(`${root}/deploy/postgres-standby.sh`, 'utf8');
    expect(body).toMatch(/pg_basebackup -h "\$PRIMARY_HOST" -D "\$PGDATA" -R -X stream/);
    expect(body).toMatch(/exec postgres/);
    expect(replica.environment?.PRIMARY_HOST).toBe('postgres');
    const hba = compose.services.postgres.volumes?.find((v) => v.endsWith(':/etc/postgresql/pg_hba.conf:ro'));
    expect(hba).toBeDefined();
    expect(compose.services.postgres.command).toContain('hba_file=/etc/postgresql/pg_hba.conf');
    expect(readFileSync(`${root}/deploy/pg_hba.conf`, 'utf8')).toMatch(/^host\s+replication\s+all\s+all\s+scram-sha-256$/m);
    expect(app.environment?.DATABASE_REPLICA_URLS).toBe('${DATABASE_REPLICA_URLS:-}');
  });

  it('production does not seed a demo project (no `*` token in the logs)', () => {
    expect(app.environment?.SEED_DEMO).toBe('false');
    expect(worker.environment?.SEED_DEMO).toBe('false');
  });

  it('every replica and restart shares AUTH_JWT_KEYS, required from the environment (.env), never a key of its own', () => {
    for (const s of [app, worker]) expect(s.environment?.AUTH_JWT_KEYS).toMatch(/^\$\{AUTH_JWT_KEYS:\?[^}]*AUTH_JWT_KEYS[^}]*\}$/);
    expect(readFileSync(`${root}/.gitignore`, 'utf8').split('\n')).toContain('.env');
    expect(readFileSync(`${root}/docker-compose.yml`, 'utf8')).toMatch(/AUTH_JWT_KEYS=k1:\$\(openssl rand -hex 32\)" >> \.env/);
  });

  it('PUBLIC_URL comes from the environment, with the local address as the default', () => {
    expect(app.environment?.PUBLIC_URL).toBe('${PUBLIC_URL:-http://localhost:4000}');
  });

  it('Docker waits longer than the drain before SIGKILL (stop_grace_period > SHUTDOWN_GRACE_MS)', () => {
    const seconds = (d: string | undefined) => {
      const m = /^(\d+)(ms|s|m)$/.exec(d ?? '10s');
      return m ? Number(m[1]) * ({ ms: 0.001, s: 1, m: 60 } as const)[m[2] as 'ms' | 's' | 'm'] : NaN;
    };
    for (const s of [app, worker]) {
      const graceMs = Number(s.environment?.SHUTDOWN_GRACE_MS ?? 10_000);
      expect(seconds(s.stop_grace_period) * 1000).toBeGreaterThan(graceMs);
    }
  });

  it('metrics are served per replica on METRICS_PORT, on the compose network only, and the proxy does not forward /metrics', () => {
    const port = app.environment?.METRICS_PORT;
    expect(port).toMatch(/^\d+$/);
    expect(app.expose).toContain(port);
    expect(app.ports).toBeUndefined();
    const caddyfile = readFileSync(`${root}/deploy/Caddyfile`, 'utf8');
    expect(caddyfile).toMatch(/@metrics path \/metrics \/metrics\/\*\s+respond @metrics 404/);
    expect(caddyfile).not.toContain(port);
  });

  it('the proxy takes a replica that refuses connections or answers 503 (draining, database lost) out of the rotation', () => {
    const caddyfile = readFileSync(`${root}/deploy/Caddyfile`, 'utf8');
    expect(caddyfile).toMatch(/unhealthy_status 503/);
    expect(caddyfile).toMatch(/fail_duration \d+s/);
    expect(caddyfile).toMatch(/lb_try_duration \d+s/);
  });

  describe("the worker's health check", () => {
    let url: string;
    let drop: () => Promise<void>;
    beforeAll(async () => ({ url, drop } = await createPrivateDatabase('cms_compose')));
    afterAll(() => drop());

    it('is not the HTTP /readyz one (the worker serves no HTTP)', () => {
      const test = worker.healthcheck?.test ?? [];
      expect(worker.healthcheck?.disable).toBeUndefined();
      expect(test[0]).toBe('CMD');
      expect(test.join(' ')).not.toMatch(/readyz|fetch|http/);
    });

    it('passes while the database and Redis answer and fails when one does not', async () => {
      const cmd = worker.healthcheck!.test!.slice(1);
      expect(await run(cmd, { DATABASE_URL: url, REDIS_URL: 'redis://127.0.0.1:6379' })).toBe(0);
      expect(await run(cmd, { DATABASE_URL: url, REDIS_URL: 'redis://127.0.0.1:1' })).toBe(1);
      expect(await run(cmd, { DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/nope', REDIS_URL: 'redis://127.0.0.1:6379' })).toBe(1);
    }, 120_000);
  });
});
