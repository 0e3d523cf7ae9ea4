// Compiles src/ to dist/ (one JavaScript file per TypeScript file, same layout, so paths relative
// to a module such as ../../prisma/migrations still resolve). Plain JavaScript, so it runs before
// anything is compiled: `npm start` calls it through `prestart` and it returns at once when dist/
// is current. Development runs the TypeScript directly with tsx (`npm run dev`).
//
//   node scripts/build.mjs            build
//   node scripts/build.mjs --if-stale build only when a source is newer than the last build
import { readdirSync, statSync, rmSync, writeFileSync, existsSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const src = join(root, 'src');
const dist = join(root, 'dist');
const stamp = join(dist, '.built');

function sources(dir = src, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** True when dist/ was built after every source file (and package.json) last changed. */
export function isCurrent() {
  if (!existsSync(stamp)) return false;
  const built = statSync(stamp).mtimeMs;
  return [join(root, 'package.json'), ...sources()].every((f) => statSync(f).mtimeMs <= built);
}

export async function build() {
  const { build: esbuild } = await import('esbuild');
  const started = Date.now();
  // Built beside dist/ and swapped in, so a process starting from dist/ meanwhile (another
  // `npm start`, the CLI) never reads a half-written tree.
  const fresh = `${dist}.${process.pid}.tmp`;
  rmSync(fresh, { recursive: true, force: true });
  await esbuild({
    entryPoints: sources(),
    outdir: fresh,
    outbase: src,
    // Bundling with every import left external is per-file transpiling that can also rewrite the
    // specifiers: sources import './x.ts', the output must import './x.js'.
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
    plugins: [
      {
        name: 'keep-imports',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) => {
            if (args.kind === 'entry-point') return undefined;
            const relative = args.path.startsWith('./') || args.path.startsWith('../');
            return { path: relative ? args.path.replace(/\.ts$/, '.js') : args.path, external: true };
          });
        },
      },
    ],
  });
  writeFileSync(join(fresh, '.built'), `${new Date().toISOString()}\n`);
  const old = `${dist}.${process.pid}.old`;
  if (existsSync(dist)) renameSync(dist, old);
  renameSync(fresh, dist);
  rmSync(old, { recursive: true, force: true });
  return Date.now() - started;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--if-stale') && isCurrent()) process.exit(0);
  const ms = await build();
  process.stderr.write(`Compiled src/ to dist/ in ${ms} ms\n`);
}
