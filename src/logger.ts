import pino, { type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stderr, so CLI stdout stays a single JSON document. */
export function createLogger(level: string, name = 'cms'): Logger {
  return pino({ name, level, base: { pid: process.pid } }, pino.destination(2));
}
