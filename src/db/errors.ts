/**
 * Failures that say "the database cannot serve this right now", not "this request is wrong": the
 * server is unreachable or restarting, the pool or the server is out of connections, a statement was
 * cancelled, a transaction lost a deadlock or a serialization race or outlived its time. They are
 * answered 503 with Retry-After (the request may succeed as sent), never a masked 500.
 */

/** SQLSTATE classes 08 (connection), 53 (resources), 57 (operator intervention) and the retryable 40s. */
const SQLSTATES = new Set(['40001', '40P01', '55P03', '57014', '57P01', '57P02', '57P03', '53000', '53100', '53200', '53300', '08000', '08001', '08003', '08004', '08006']);
/** Prisma: cannot reach / timed out / connection closed / pool timeout / transaction expired / write conflict or deadlock. */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028', 'P2034']);
/** Kinds of @prisma/driver-adapter-utils errors that mean the same. */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections', 'TransactionWriteConflict']);
const NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'EAI_AGAIN']);
/** node-postgres reports a dropped or timed-out connection by message only. */
const PG_MESSAGES = /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect)/;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

function matches(e: Record<string, unknown>): boolean {
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code && (SQLSTATES.has(code) || PRISMA_CODES.has(code) || NODE_CODES.has(code))) return true;
  if (typeof e.originalCode === 'string' && SQLSTATES.has(e.originalCode)) return true;
  if (typeof e.kind === 'string' && ADAPTER_KINDS.has(e.kind)) return true;
  return typeof e.message === 'string' && PG_MESSAGES.test(e.message);
}

export function isTransientDatabaseError(err: unknown): boolean {
  // The error itself, what it wraps (`cause`), and a Prisma error's driver-adapter cause.
  const seen: unknown[] = [err];
  for (let i = 0; i < seen.length && i < 8; i++) {
    const e = seen[i];
    if (!isRecord(e)) continue;
    if (matches(e)) return true;
    if (e.cause !== undefined) seen.push(e.cause);
    const adapter = isRecord(e.meta) && isRecord(e.meta.driverAdapterError) ? e.meta.driverAdapterError : undefined;
    if (adapter) seen.push(adapter, adapter.cause);
  }
  return false;
}

/**
 * The SQLSTATE of a PostgreSQL data exception (class 22: a value out of range, an invalid text
 * encoding, a malformed date, ...) anywhere in the error chain, or null. Such a failure means the
 * request carried a value validation should have refused: the client's fault, our bug.
 */
/** Prisma's own names for two data exceptions it may raise before or instead of the SQLSTATE. */
const PRISMA_DATA_CODES: Record<string, string> = { P2000: '22001', P2020: '22003' };

export function dataExceptionState(err: unknown): string | null {
  const seen: unknown[] = [err];
  for (let i = 0; i < seen.length && i < 8; i++) {
    const e = seen[i];
    if (!isRecord(e)) continue;
    for (const code of [e.code, e.originalCode]) if (typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code)) return code;
    if (typeof e.code === 'string' && Object.hasOwn(PRISMA_DATA_CODES, e.code)) return PRISMA_DATA_CODES[e.code];
    if (e.cause !== undefined) seen.push(e.cause);
    const adapter = isRecord(e.meta) && isRecord(e.meta.driverAdapterError) ? e.meta.driverAdapterError : undefined;
    if (adapter) seen.push(adapter, adapter.cause);
  }
  return null;
}

/**
 * Prisma's "the record this write needs is not there" (P2025: an update or delete by key that
 * matched no row; P2001: the same for a nested lookup). Operations guard the rows they change, so
 * this means a concurrent request removed the record first: the caller is told it is gone (404),
 * as it would be had it come a moment later, never a 500.
 */
const PRISMA_GONE_CODES = new Set(['P2025', 'P2001']);

export function isRecordGoneError(err: unknown): boolean {
  const seen: unknown[] = [err];
  for (let i = 0; i < seen.length && i < 8; i++) {
    const e = seen[i];
    if (!isRecord(e)) continue;
    if (typeof e.code === 'string' && PRISMA_GONE_CODES.has(e.code)) return true;
    if (e.cause !== undefined) seen.push(e.cause);
  }
  return false;
}
