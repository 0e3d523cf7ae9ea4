import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { root } from '../cli/subprocess.ts';

const run = promisify(execFile);

/** What a process's log looks like in each format: stderr of a real process, since that is where it goes. */
async function logOf(format: string): Promise<string> {
  const script = `import { createLogger } from './src/logger.ts';
    const log = createLogger('info', 'cms', { format: ${JSON.stringify(format)} });
    log.info({ applied: 33 }, '33 migrations applied');`;
  const { stderr } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root });
  return stderr;
}

describe('log format', () => {
  it('pretty: one readable line per record, fields kept; json: one JSON object per line', async () => {
    const pretty = await logOf('pretty');
    expect(pretty).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: 33 migrations applied \{"applied":33\}\n$/);
    const json = JSON.parse((await logOf('json')).trim());
    expect(json).toMatchObject({ level: 30, name: 'cms', msg: '33 migrations applied', applied: 33 });
    // auto without a terminal (a pipe, as here) is JSON, what containers and log shippers read.
    expect(JSON.parse((await logOf('auto')).trim())).toMatchObject({ msg: '33 migrations applied' });
  }, 60_000);

  it('LOG_FORMAT takes auto, json or pretty and names itself otherwise', () => {
    expect(loadConfig({}).LOG_FORMAT).toBe('auto');
    expect(loadConfig({ LOG_FORMAT: 'PRETTY' }).LOG_FORMAT).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(ConfigError);
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT must be auto, json or pretty/);
  });
});
