import { runCli } from './run.ts';

const code = await runCli(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  errIsTTY: process.stderr.isTTY === true,
});
// Let stdout drain before exiting (a pipe reader must see the whole JSON line).
process.stdout.write('', () => process.exit(code));
