import type { Logger } from './logger.ts';

/**
 * Closes the process's resources once on SIGINT or SIGTERM, then exits 0. Install it before the
 * process announces itself: a signal right after the "listening" line must still release the
 * embedded database claim and drain connections.
 */
export function closeOnSignal(log: Logger, what: string, close: () => Promise<void>): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, `${what} shutting down`);
    await close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}
