import { existsSync, readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { root } from '../cli/subprocess.ts';

const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(`${root}/package-lock.json`, 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean; os?: string[] }>;
};
const dockerfile = readFileSync(`${root}/Dockerfile`, 'utf8');
const engines = pkg.engines.node;

/**
 * Every package the image can install that declares which Node versions it runs on. Optional
 * packages for another operating system (sharp's `@img/sharp-win32-*`) are never installed on the
 * Linux image, so their ranges do not bind it.
 */
const declared = Object.entries(lock.packages)
  .filter(([path]) => path !== '')
  .filter(([, p]) => !(p.optional && p.os && !p.os.includes('linux')))
  .flatMap(([path, p]) => (p.engines && !Array.isArray(p.engines) && p.engines.node ? [{ path, range: p.engines.node, optional: !!p.optional }] : []));

describe('Node version: package.json engines, the Dockerfile and every dependency agree', () => {
  it('engines is a range every installed package accepts', () => {
    expect(declared.length).toBeGreaterThan(10);
    const refused = declared.filter((d) => !semver.subset(engines, d.range, { includePrerelease: true }));
    expect(refused).toEqual([]);
  });

  it('npm would print no EBADENGINE on the lowest Node each supported line allows (the check npm itself makes)', () => {
    for (const major of [22, 24]) {
      const minor = Array.from({ length: 100 }, (_, i) => i).find((m) => semver.satisfies(`${major}.${m}.0`, engines));
      expect(minor, `Node ${major}`).toBeDefined();
      const lowest = `${major}.${minor}.0`;
      const warned = declared.filter((d) => !d.optional && !semver.satisfies(lowest, d.range, { includePrerelease: true }));
      expect(warned, `Node ${lowest}`).toEqual([]);
    }
  });

  it("every FROM in the Dockerfile is a Node image whose line engines accepts, and it names the README's Node", () => {
    const froms = [...dockerfile.matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]);
    expect(froms.length).toBeGreaterThanOrEqual(2); // dependencies stage + runtime stage
    for (const image of froms) {
      const tag = /^node:(\d+(?:\.\d+){0,2})-/.exec(image)?.[1];
      expect(tag, image).toBeDefined();
      // A tag like `22` floats to the newest 22.x release; that is what a build gets.
      const [major, minor = '99999', patch = '99999'] = tag!.split('.');
      const newest = `${major}.${minor}.${patch}`;
      expect(semver.satisfies(newest, engines), `${image} vs engines ${engines}`).toBe(true);
      expect(semver.major(newest) % 2, `${image}: an even (LTS) line`).toBe(0);
    }
    const major = /^node:(\d+)/.exec(froms.at(-1)!)![1];
    expect(readFileSync(`${root}/README.md`, 'utf8')).toMatch(new RegExp(`Node\\.js ${major}\\b`));
  });

  it('the runtime stage installs production dependencies only, compiles dist/ and runs node on it directly', () => {
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    const build = dockerfile.indexOf('RUN node scripts/build.mjs');
    const cmdAt = dockerfile.search(/^CMD /m);
    expect(build).toBeGreaterThan(dockerfile.indexOf('COPY . .'));
    expect(build).toBeLessThan(cmdAt);
    const cmd = JSON.parse(/^CMD\s+(\[.*\])\s*$/m.exec(dockerfile)![1]) as string[];
    // node is PID 1's child under `init`, with no npm or tsx between: SIGTERM reaches the server.
    expect(cmd).toEqual(['node', 'dist/main.js']);
    expect(existsSync(`${root}/src/main.ts`)).toBe(true);
    // The compiler runs in the image, from production dependencies.
    expect(JSON.parse(readFileSync(`${root}/package.json`, 'utf8')).dependencies.esbuild).toBeDefined();
  });
});
