import pino, { type Logger } from 'pino';

export type { Logger };

/** How long a buffered line may wait before it is written, when traffic is too thin to fill a chunk. */
const FLUSH_EVERY_MS = 200;

/**
 * Structured JSON logs on stderr, so CLI stdout stays a single JSON document.
 *
 * `buffered` (the API server): lines are gathered into chunks of 8 KiB and written
 * asynchronously, at least every 200 ms. A synchronous write(2) per line cost the cached published
 * read about a third of its throughput once every request logged an access line (BENCHMARKS.md,
 * "Cost of the operations plugins"); batching turns thousands of syscalls per second into a few.
 * pino flushes the buffer synchronously on process exit (normal exit, `process.exit`, an uncaught
 * exception), so only a SIGKILL can lose the last fraction of a second. Error and fatal lines are
 * written at once, so a crash report never waits behind the buffer. If stderr stops draining (a
 * stuck log shipper), more than 64 MiB of pending lines are dropped rather than the heap growing
 * without bound.
 */
export function createLogger(level: string, name = 'cms', opts: { buffered?: boolean } = {}): Logger {
  if (!opts.buffered) return pino({ name, level, base: { pid: process.pid } }, pino.destination(2));
  const destination = pino.destination({ dest: 2, sync: false, minLength: 8 * 1024, maxLength: 64 * 1024 * 1024 });
  const timer = setInterval(() => {
    // flush() on an empty or already-writing stream is a no-op; errors surface on the stream.
    try {
      destination.flush();
    } catch {
      /* a destination being closed at exit */
    }
  }, FLUSH_EVERY_MS);
  timer.unref();
  const logger = pino(
    {
      name,
      level,
      base: { pid: process.pid },
      hooks: {
        logMethod(args, method, levelValue) {
          method.apply(this, args);
          if (levelValue >= 50) destination.flush();
        },
      },
    },
    destination,
  );
  return logger;
}
