import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cms, root } from './subprocess.ts';

// No DATABASE_URL, and a configuration that would fail to load: help must need neither.
const noStorage = { DATABASE_URL: '', PORT: 'not a port' };

describe('cms help and version', () => {
  it('--version prints the package version on stdout', async () => {
    const { version } = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));
    for (const flag of ['--version', '-V']) {
      const r = await cms([flag], noStorage);
      expect(r).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
  }, 60_000);

  it('cms --help lists every command with a description, on stdout', async () => {
    const r = await cms(['--help'], noStorage);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Usage: cms \[options\] \[command\]/);
    expect(r.stdout).toMatch(/project\s+create, list and configure projects/);
    expect(r.stdout).toMatch(/token\s+create, list and revoke API tokens/);
    expect(r.stdout).toMatch(/migrate \[options\]\s+apply pending database migrations/);
    expect(r.stdout).toMatch(/health \[options\]\s+check that the database/);
    expect(r.stdout).toMatch(/cms token create --project <uuid> --abilities '\*'/);
    expect((await cms(['help'], noStorage)).stdout).toBe(r.stdout);
  }, 60_000);

  it('cms <command> --help describes each option, on stdout', async () => {
    const create = await cms(['token', 'create', '--help'], noStorage);
    expect(create.code).toBe(0);
    expect(create.stdout).toMatch(/^Usage: cms token create \[options\]/);
    expect(create.stdout).toMatch(/--project <uuid>\s+the project, by UUID/);
    expect(create.stdout).toMatch(/--abilities <list>\s+comma-separated: read, create, update, delete, admin,\s+or\s+\*\s+for all/);
    expect(create.stdout.replace(/\s+/g, ' ')).toMatch(/--collections <slugs> comma-separated collection slugs .* --fields <spec> .* --expires <when> expiry/);
    expect(create.stdout).toMatch(/--json\s+print one JSON value instead of text/);

    const revoke = await cms(['token', 'help', 'revoke'], noStorage);
    expect(revoke.code).toBe(0);
    expect(revoke.stdout).toMatch(/Usage: cms token revoke \[options\] <token>/);
    expect(revoke.stdout).toMatch(/token\s+the token's id or\s+prefix/);

    const project = await cms(['project', 'create', '--help'], noStorage);
    // commander wraps descriptions at 80 columns when stdout is not a terminal.
    expect(project.stdout.replace(/\s+/g, ' ')).toMatch(/--plan <plan> plan \(how many versions an entry keeps\) \(choices: "basic", "grow", "pro", default: "basic"\)/);
  }, 60_000);

  it('a wrong command goes to stderr with exit code 2 and nothing on stdout', async () => {
    const r = await cms(['token', 'lst'], noStorage);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/unknown command 'lst'/);
  }, 60_000);
});
