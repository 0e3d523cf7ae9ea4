import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createConfig, lintFromString } from '@redocly/openapi-core';

/** Problems `redocly lint` (recommended rules) reports for a document, errors and warnings apart; no network. */
export async function redoclyLint(doc: unknown): Promise<{ errors: string[]; warnings: string[] }> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
  const text = (p: (typeof problems)[number]) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`;
  return { errors: problems.filter((p) => p.severity === 'error').map(text), warnings: problems.filter((p) => p.severity === 'warn').map(text) };
}

/** Writes files to a fresh temp dir and runs `tsc --noEmit --strict` over `entry`; resolves with tsc's output. */
export async function typecheckStrict(files: Record<string, string>, entry: string): Promise<{ ok: boolean; output: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'typegen-'));
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  const tsc = path.resolve('node_modules/typescript/bin/tsc');
  const args = [tsc, '--noEmit', '--strict', '--target', 'es2022', '--module', 'esnext', '--moduleResolution', 'bundler', '--skipLibCheck', path.join(dir, entry)];
  try {
    const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: dir });
    return { ok: true, output: stdout };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}
