import { writeSync } from 'node:fs';
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

/** How long a buffered line may wait before it is written, when traffic is too thin to fill a chunk. */
const FLUSH_EVERY_MS = 200;
/**
 * Lines are handed to the file descriptor in chunks of about this many bytes (a pipe's default
 * capacity). Each asynchronous write is a round trip through libuv's thread pool, which on this
 * kind of VM costs far more than the bytes: at 20,000 lines/s a line cost about 5.5 µs with 8 KiB
 * chunks and 2.5 µs with 64 KiB ones (BENCHMARKS.md, "Cost of the operations plugins").
 */
const CHUNK_BYTES = 64 * 1024;
/** Unwritten bytes beyond which SonicBoom drops new lines (a stderr that stopped draining). */
const MAX_PENDING_BYTES = 64 * 1024 * 1024;

/**
 * Gathers whole lines and hands them to pino's SonicBoom destination one chunk at a time.
 *
 * SonicBoom's own `minLength` buffering appends each line to a growing string and measures that
 * string's UTF-8 length on every write, which flattens it: each line cost a copy and a scan of up to
 * 16 KiB (about 3 µs per line, measured at 20,000 lines/s). Here a line is pushed onto an array and
 * a chunk is joined once per ~64 KiB, so SonicBoom sees few, flat
 * strings and keeps what it is good at: the file descriptor, partial writes, EAGAIN and EPIPE.
 */
class LineBatcher {
  private lines: string[] = [];
  private chars = 0;

  constructor(
    private readonly sink: pino.DestinationStream & { flush(cb?: (err?: Error) => void): void; flushSync(): void },
    private readonly fd: number,
  ) {}

  write(line: string): boolean {
    // UTF-16 length decides when to hand a chunk over; the exact byte count is SonicBoom's business.
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= CHUNK_BYTES) this.handOver();
    return true;
  }

  /** Everything gathered goes to SonicBoom, which writes it asynchronously. */
  flush(cb?: (err?: Error) => void): void {
    this.handOver();
    this.sink.flush(cb);
  }

  /**
   * At exit, when there is no event loop left to wait on: what SonicBoom holds first, then the
   * gathered lines straight to the descriptor (handed to SonicBoom they would start an asynchronous
   * write that exit does not wait for).
   */
  flushSync(): void {
    this.sink.flushSync();
    const chunk = this.take();
    if (chunk) writeSync(this.fd, chunk);
  }

  private handOver(): void {
    const chunk = this.take();
    if (chunk) this.sink.write(chunk);
  }

  private take(): string | undefined {
    if (this.lines.length === 0) return undefined;
    const chunk = this.lines.length === 1 ? this.lines[0]! : this.lines.join('');
    this.lines = [];
    this.chars = 0;
    return chunk;
  }
}

/**
 * Structured JSON logs on stderr, so CLI stdout stays a single JSON document.
 *
 * `buffered` (the API server): lines are gathered into chunks of 64 KiB and written
 * asynchronously, at least every 200 ms. A synchronous write(2) per line cost the cached published
 * read about a third of its throughput once every request logged an access line (BENCHMARKS.md,
 * "Cost of the operations plugins"); batching turns thousands of syscalls per second into a few.
 * Gathered lines are flushed synchronously on process exit (normal exit, `process.exit`, an uncaught
 * exception), so only a SIGKILL can lose the last fraction of a second. Error and fatal lines are
 * written at once, so a crash report never waits behind the buffer. If stderr stops draining (a
 * stuck log shipper), more than 64 MiB of pending lines are dropped rather than the heap growing
 * without bound.
 */
/** `json`: one JSON object per line; `pretty`: readable lines; `auto`: readable on a terminal, JSON anywhere else. */
export type LogFormat = 'auto' | 'json' | 'pretty';

const readable = (format: LogFormat): boolean => format === 'pretty' || (format === 'auto' && process.stderr.isTTY === true);

/**
 * A person at a terminal reads lines, not JSON (the first thing `npm start` shows); a container log,
 * a file or a pipe keeps JSON for the machines that read it. Synchronous: a terminal is slow to
 * read anyway, and nothing is lost when the process exits.
 */
const readableStream = () =>
  pretty({ destination: 2, sync: true, colorize: process.stderr.isTTY === true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,name', singleLine: true });

export function createLogger(level: string, name = 'cms', opts: { buffered?: boolean; format?: LogFormat } = {}): Logger {
  if (readable(opts.format ?? 'auto')) return pino({ name, level, base: { pid: process.pid } }, readableStream());
  if (!opts.buffered) return pino({ name, level, base: { pid: process.pid } }, pino.destination(2));
  // SonicBoom writes whatever it is given at once (minLength 0): the batching is the LineBatcher's.
  // pino.destination registers SonicBoom's own flush at exit; the batcher's lines must reach it first.
  const sonic = pino.destination({ dest: 2, sync: false, maxLength: MAX_PENDING_BYTES });
  const destination = new LineBatcher(sonic, 2);
  process.once('exit', () => {
    try {
      destination.flushSync();
    } catch {
      /* stderr already gone */
    }
  });
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
