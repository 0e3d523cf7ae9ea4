import type { Database } from './db/client.ts';
import type { Logger } from './logger.ts';

export interface ShutdownPlan {
  /** Finishes in-flight work and releases everything; resolving means the process may exit 0. */
  drain: () => Promise<void>;
  /** Called once the grace period is over with `drain` still running: cut what is left. */
  force?: () => void | Promise<void>;
  /** SHUTDOWN_GRACE_MS: how long `drain` may take before `force` runs and the process exits 1. */
  graceMs: number;
}

/**
 * Drains the process once on SIGINT or SIGTERM, then exits 0. Install it before the process announces
 * itself: a signal right after the "listening" line must still release the embedded database claim
 * and drain connections. A drain that outlives the grace period is cut short (`force`) and the
 * process exits 1, so an orchestrator's own kill timer never has to fire. A second signal while
 * draining finds no handler left and ends the process at once (Ctrl-C twice).
 */
export function closeOnSignal(log: Logger, what: string, plan: ShutdownPlan): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, graceMs: plan.graceMs }, `${what} draining`);
    const timer = setTimeout(() => {
      log.warn({ graceMs: plan.graceMs }, `${what}: grace period over, closing what is left`);
      void Promise.resolve(plan.force?.())
        .catch(() => {})
        .finally(() => process.exit(1));
    }, plan.graceMs);
    try {
      await plan.drain();
    } catch (err) {
      log.error({ err: err instanceof Error ? err.message : String(err) }, `${what}: drain failed`);
      clearTimeout(timer);
      process.exit(1);
    }
    clearTimeout(timer);
    log.info(`${what} stopped`);
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

/** A start-up failure whose message says everything: printed without a stack trace. */
export class StartupError extends Error {}

/**
 * Waits for PostgreSQL at start, so a database that comes up after the app (compose, a restarted
 * cluster) does not crash-loop it: one log line per failed attempt with the reason, backoff from
 * 250 ms doubling to 5 s, and a StartupError once `timeoutMs` (DATABASE_CONNECT_TIMEOUT_MS) is spent.
 */
export async function waitForDatabase(database: Database, log: Logger, timeoutMs: number, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))): Promise<void> {
  const started = Date.now();
  let delay = 250;
  for (let attempt = 1; ; attempt++) {
    try {
      await database.query('SELECT 1');
      if (attempt > 1) log.info({ attempt }, 'PostgreSQL reachable');
      return;
    } catch (err) {
      const reason = describeConnectError(err);
      const left = timeoutMs - (Date.now() - started);
      if (left <= 0) {
        throw new StartupError(`PostgreSQL unreachable after ${attempt} attempt(s) over ${Math.round((Date.now() - started) / 1000)} s (DATABASE_CONNECT_TIMEOUT_MS=${timeoutMs}): ${reason}`);
      }
      const wait = Math.min(delay, left);
      log.warn({ attempt, retryInMs: wait, reason }, 'PostgreSQL unreachable, retrying');
      await sleep(wait);
      delay = Math.min(delay * 2, 5000);
    }
  }
}

/** The useful part of a driver error (code and message), never the connection string. */
function describeConnectError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: string }).code;
  const message = err.message || (err instanceof AggregateError ? err.errors.map((e: Error) => e.message).join('; ') : err.name);
  return code && !message.includes(code) ? `${code} ${message}` : message;
}
