import { spawn } from 'node:child_process';
import { root } from '../cli/subprocess.ts';
import { TEST_JWT_KEYS } from './pg.ts';

/** Starts `src/main.ts` as the image does, waits until it listens, stops it; returns its stderr. */
export function startAndStop(env: Record<string, string>): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: root,
      env: { ...process.env, AUTH_JWT_KEYS: TEST_JWT_KEYS, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', WORKER_IN_PROCESS: 'false', ...env },
    });
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`the server did not start:\n${stderr}`));
    }, 90_000);
    child.stderr.on('data', (d) => {
      stderr += d;
      // The server seeds (or not) before it listens.
      if (/listening/.test(stderr)) child.kill('SIGTERM');
    });
    child.stdout.on('data', (d) => (stderr += d));
    child.on('exit', () => {
      clearTimeout(timer);
      done(stderr);
    });
  });
}
