#!/usr/bin/env node
// Folder-level cycle check: collapses the module graph dependency-cruiser builds to `src/<folder>` (a file at
// src/ root stays its own node) and fails when any group of folders imports itself through the others. The
// file-level `no-circular` rule cannot see this: a folder cycle can be made of acyclic files.
import { execFileSync } from 'node:child_process';

const out = execFileSync('node_modules/.bin/depcruise', ['src', '--output-type', 'json', '--config', '.dependency-cruiser.cjs'], { maxBuffer: 1 << 28, encoding: 'utf8' });
const { modules } = JSON.parse(out);

const unit = (path) => {
  const m = /^src\/([^/]+)\//.exec(path);
  return m ? `src/${m[1]}` : path;
};
const edges = new Map();
const evidence = new Map();
for (const mod of modules) {
  if (!mod.source.startsWith('src/')) continue;
  const from = unit(mod.source);
  if (!edges.has(from)) edges.set(from, new Set());
  for (const dep of mod.dependencies) {
    if (!dep.resolved.startsWith('src/')) continue;
    const to = unit(dep.resolved);
    if (to === from) continue;
    edges.get(from).add(to);
    const key = `${from} → ${to}`;
    if (!evidence.has(key)) evidence.set(key, []);
    evidence.get(key).push(`${mod.source} → ${dep.resolved}`);
  }
}

// Tarjan's strongly connected components.
let index = 0;
const idx = new Map(), low = new Map(), onStack = new Set(), stack = [], groups = [];
const visit = (v) => {
  idx.set(v, index); low.set(v, index); index++;
  stack.push(v); onStack.add(v);
  for (const w of edges.get(v) ?? []) {
    if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
    else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) === idx.get(v)) {
    const group = [];
    let w;
    do { w = stack.pop(); onStack.delete(w); group.push(w); } while (w !== v);
    if (group.length > 1) groups.push(group.sort());
  }
};
for (const v of edges.keys()) if (!idx.has(v)) visit(v);

if (groups.length === 0) {
  console.log(`folder cycles: none (${edges.size} folders and root files)`);
  process.exit(0);
}
for (const group of groups) {
  console.error(`folder cycle: ${group.join(' ⇄ ')}`);
  const members = new Set(group);
  for (const from of group) for (const to of edges.get(from) ?? []) {
    if (!members.has(to)) continue;
    const files = evidence.get(`${from} → ${to}`);
    console.error(`  ${from} → ${to} (${files.length}): ${files.slice(0, 3).join(', ')}${files.length > 3 ? ', …' : ''}`);
  }
}
process.exit(1);
