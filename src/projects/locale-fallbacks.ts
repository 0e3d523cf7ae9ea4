import { z } from 'zod';
import type { Project } from '../db/generated/prisma/client.ts';
import { withinTransaction } from '../db/client.ts';
import { authorize, type Ctx } from '../context.ts';
import { WHOLE_PROJECT, authorizeProjectAdmin } from '../admin-scope.ts';
import { validationFailed, zodToAppError } from '../errors.ts';
import { localeCode, lockProjectRow } from './operations.ts';
import { localeChain, localeFallbacks } from './locale-chain.ts';

/**
 * Locale fallback chains (docs/foundation.md, "Locale fallbacks"; docs/entries.md, "Locale
 * fallback"). Each locale of a project may name another locale of the project as its fallback; a
 * read that asks for fallback follows them, locale to fallback to fallback, and answers, per
 * translation group, from the first locale of that chain that has an entry.
 *
 * The map is stored on the project row (`locale_fallbacks`), so authentication reads it with the
 * project, and a change moves the row's `updated_at`, which every read-cache key holds: cached
 * fallback reads are dropped when a fallback changes, without a rule of their own.
 */

/**
 * The body of PATCH /api/project/locales/{locale}: the route validates (and documents) it with this
 * same schema, so a fallback is held to the rules of a locale code as the locale it names was.
 */
export const localeFallbackInput = z
  .object({ fallback: z.union([localeCode, z.null()], { error: 'The fallback must be a locale code or null.' }) })
  .strict();

/**
 * PATCH /api/project/locales/{locale}: sets (or, with null, clears) the locale's fallback. Both must
 * be locales of the project, and the chain they make must end: a fallback that leads back to the
 * locale is refused, naming the loop. Runs on the locked project row, as every locale change does,
 * so two changes at once cannot make a cycle neither would alone.
 */
export async function setLocaleFallback(ctx: Ctx, locale: unknown, input: unknown): Promise<Project> {
  authorizeProjectAdmin(ctx, WHOLE_PROJECT.project);
  const code = localeCode.safeParse(locale);
  if (!code.success) throw validationFailed({ locale: [code.error.issues[0]?.message ?? 'The locale is invalid.'] });
  const parsed = localeFallbackInput.safeParse(input ?? {});
  if (!parsed.success) throw zodToAppError(parsed.error);
  const from = code.data;
  const to = parsed.data.fallback;
  ctx.project = await withinTransaction(ctx.db, async (tx) => {
    await lockProjectRow(tx, ctx.project.id);
    const project = await tx.project.findUniqueOrThrow({ where: { id: ctx.project.id } });
    if (!project.locales.includes(from)) throw validationFailed({ locale: [`The locale '${from}' is not one of the project's locales.`] });
    const map = localeFallbacks(project);
    if (to === null) {
      if (map[from] === undefined) return project;
      delete map[from];
    } else {
      if (!project.locales.includes(to)) throw validationFailed({ fallback: [`The fallback '${to}' is not one of the project's locales.`] });
      if (to === from) throw validationFailed({ fallback: [`A locale cannot fall back to itself ('${from}').`] });
      const onward = localeChain(project, to);
      if (onward.includes(from)) {
        const loop = [from, ...onward.slice(0, onward.indexOf(from) + 1)];
        throw validationFailed({ fallback: [`The fallback would make a cycle: ${loop.join(' → ')}.`] });
      }
      if (map[from] === to) return project;
      map[from] = to;
    }
    return tx.project.update({ where: { id: project.id }, data: { localeFallbacks: map } });
  });
  return ctx.project;
}
