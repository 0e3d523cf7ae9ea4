import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Imports a sibling benchmark module that another engineer may not have written yet (null when the
 * file is absent). The path is a variable on purpose, so the typecheck does not require the file;
 * a file that exists but fails to load is an error, not a silent fallback.
 */
export async function optionalImport(relativeToLib: string): Promise<Record<string, unknown> | null> {
  const url = new URL(relativeToLib, import.meta.url);
  if (!existsSync(fileURLToPath(url))) return null;
  return (await import(url.href)) as Record<string, unknown>;
}
