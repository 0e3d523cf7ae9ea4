/**
 * Summarises a V8 `.cpuprofile`: self time by function and by package, so a profile of the server
 * under load can be read in a terminal. `npx tsx bench/lib/profile-summary.ts <file> [top=30]`.
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);

const packageOf = (url: string): string => {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.includes('/src/')) return `src/${url.split('/src/')[1].split('/')[0]}`;
  return url ? (url.startsWith('node:') ? 'node-internal' : url.split('/').slice(-1)[0]) : '(vm)';
};
const fns = new Map<string, number>();
const pkgs = new Map<string, number>();
for (const [id, t] of self) {
  const n = byId.get(id)!;
  const name = n.callFrame.functionName || '(anonymous)';
  const key = `${name} ${n.callFrame.url.replace(/^.*node_modules\//, '').replace(/^.*\/src\//, 'src/')}:${n.callFrame.lineNumber + 1}`;
  fns.set(key, (fns.get(key) ?? 0) + t);
  const p = packageOf(n.callFrame.url);
  pkgs.set(p, (pkgs.get(p) ?? 0) + t);
}
const pct = (t: number) => `${((t / total) * 100).toFixed(1).padStart(5)} %`;
console.log(`total ${(total / 1000).toFixed(0)} ms sampled`);
console.log('\nby package (self time)');
for (const [k, t] of [...pkgs].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(t)}  ${k}`);
console.log('\nby function (self time)');
for (const [k, t] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(t)}  ${k}`);
