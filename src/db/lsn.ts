/**
 * PostgreSQL WAL positions (`pg_lsn`, written `16/B374D848`): two 32-bit hex halves of one 64-bit
 * byte offset. Compared as bigints, since the text form does not sort.
 */
export type Lsn = bigint;

const LSN = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;

/** The position `text` names, or undefined when it is not one (a client's header is never trusted to be). */
export function parseLsn(text: string | undefined | null): Lsn | undefined {
  if (!text) return undefined;
  const m = LSN.exec(text.trim());
  return m ? (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`) : undefined;
}

export function formatLsn(lsn: Lsn): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** The later of two positions, either of which may be unknown. */
export const laterLsn = (a: Lsn | undefined, b: Lsn | undefined): Lsn | undefined => (a === undefined ? b : b === undefined || a >= b ? a : b);

/** The later of two WAL positions as PostgreSQL writes them (`0/3000148`), kept as given; unparsable ones lose. */
export function laterLsnText<T extends string | null | undefined>(a: T, b: T): T {
  const pa = parseLsn(a);
  const pb = parseLsn(b);
  return pb !== undefined && (pa === undefined || pb > pa) ? b : a;
}
