import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

export const root = resolve(import.meta.dirname, '../..');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `node bin/cms.js …` (what `npx cms` runs) as its own process. */
export function cms(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((done) => {
    execFile(process.execPath, ['bin/cms.js', ...args], { cwd: root, env: { ...process.env, LOG_LEVEL: 'silent', ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

/**
 * The same command through `runCli` inside the test process: what `bin/cms.js` runs, minus the ~2 s
 * of module loading each process pays. For tests of what a command does; help.test.ts and
 * cli.test.ts keep real processes for what only a process shows (exit codes, stdout draining).
 */
export async function cmsInProcess(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const { runCli } = await import('../../src/cli/run.ts');
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { ...process.env, LOG_LEVEL: 'silent', ...env }, { out: (s) => (stdout += s), err: (s) => (stderr += s) });
  return { code, stdout, stderr };
}
