import type { Project } from '../db/generated/prisma/client.ts';
import { validationFailed } from '../errors.ts';

/**
 * Locale fallback chains (docs/foundation.md, "Locale fallbacks"; docs/entries.md, "Locale
 * fallback"): the project's map read as chains. Pure functions of the project row, which
 * authentication reads whole, so following a chain costs no statement.
 */

/** A chain is at most this long: the project's locales are at most 100 (projects/operations.ts). */
const MAX_CHAIN = 100;

/** The project's fallbacks, locale → fallback, for its current locales only. */
export function localeFallbacks(project: Pick<Project, 'locales' | 'localeFallbacks'>): Record<string, string> {
  const raw = project.localeFallbacks;
  const out: Record<string, string> = {};
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return out;
  for (const locale of project.locales) {
    const to = Object.hasOwn(raw, locale) ? (raw as Record<string, unknown>)[locale] : undefined;
    if (typeof to === 'string' && to !== locale && project.locales.includes(to)) out[locale] = to;
  }
  return out;
}

/**
 * The locales a read of `locale` tries, in order: the locale itself, then its fallback, then that
 * one's, and so on. A locale without a fallback (or not of the project) is a chain of one. The
 * writes below refuse cycles; one found anyway ends the chain where it closes.
 */
export function localeChain(project: Pick<Project, 'locales' | 'localeFallbacks'>, locale: string): string[] {
  const map = localeFallbacks(project);
  const chain = [locale];
  for (let next = map[locale]; next !== undefined && !chain.includes(next) && chain.length < MAX_CHAIN; next = map[next]) chain.push(next);
  return chain;
}

/**
 * What removing `locale` does to the fallbacks: the locale's own fallback goes with it; a locale
 * that falls back to it refuses the removal (422 naming them), since quietly cutting or re-routing
 * their chains would change what their reads answer.
 */
export function fallbacksWithout(project: Pick<Project, 'locales' | 'localeFallbacks'>, locale: string): Record<string, string> {
  const map = localeFallbacks(project);
  const dependants = Object.keys(map).filter((l) => map[l] === locale);
  if (dependants.length) {
    throw validationFailed({
      locale: [`The locale '${locale}' is the fallback of ${dependants.map((l) => `'${l}'`).join(', ')}: change or clear that fallback first.`],
    });
  }
  delete map[locale];
  return map;
}
