import { appendFileSync } from 'node:fs';

/**
 * Stage timestamps of the live path, for bench/live.ts: with `LIVE_STAGE_LOG=<file>` (src/config.ts)
 * each pass of the change stream and each group's write appends one JSON line (times from
 * `Date.now()`, the harness's clock), so the harness can split commit → delivery into its stages.
 * Off (the usual case), every call is a test of one module-level flag.
 */
let file: string | undefined;

export let stagesOn = false;

/** Turns the log on for this process (services.ts, from config); a diagnostic, never on by default. */
export function startStageLog(path: string | undefined): void {
  if (!path || stagesOn) return;
  file = path;
  stagesOn = true;
  process.on('exit', flush);
}

let lines: string[] = [];
let timer: NodeJS.Timeout | undefined;

function flush(): void {
  timer = undefined;
  if (!lines.length) return;
  const text = lines.join('');
  lines = [];
  appendFileSync(file!, text);
}

/** Notes one record (buffered, written every 200 ms and at exit). */
export function stage(record: Record<string, unknown>): void {
  if (!stagesOn) return;
  lines.push(`${JSON.stringify(record)}\n`);
  timer ??= setTimeout(flush, 200);
  timer.unref();
}

