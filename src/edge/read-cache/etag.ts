/** True when an `If-None-Match` header names `etag` (weak comparison, lists and `*` included). */
export function matchesIfNoneMatch(header: string | string[] | undefined | null, etag: string): boolean {
  if (!header) return false;
  const wanted = etag.replace(/^W\//, '');
  return (Array.isArray(header) ? header.join(',') : header)
    .split(',')
    .map((t) => t.trim())
    .some((t) => t === '*' || t.replace(/^W\//, '') === wanted);
}
