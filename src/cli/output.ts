/**
 * How a command's result reaches the terminal: a human rendering by default, exactly one JSON value
 * with `--json` (what scripts and `jq` read).
 */
export interface CommandOutput {
  /** The value `--json` prints; keys in snake_case like the REST API's. */
  json: unknown;
  /** What a person reads (no trailing newline). */
  human: string;
}

/** Columns padded to their widest cell; an empty list says so instead of printing a bare header. */
export function table(headers: string[], rows: string[][], empty: string): string {
  if (rows.length === 0) return empty;
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** Label/value pairs, labels aligned. */
export function fields(pairs: Array<[string, string]>): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`).join('\n');
}

/** Minutes are precise enough for a person; `--json` carries the full timestamp. */
export const humanTime = (d: Date | null, none: string): string =>
  d ? `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC` : none;

