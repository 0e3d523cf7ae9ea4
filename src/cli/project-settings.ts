import type { Database } from '../db/client.ts';
import { updateProjectSettingsByUuid } from '../projects/operations.ts';
import { isUuid } from '../uuid.ts';

/**
 * `cms project set --project UUID [--require-email-verification true|false]`. Kept apart from the
 * CLI's argument parsing (src/cli/run.ts): it receives the parsed option values, a way to open the
 * database and a way to report wrong usage, so the wiring is one line whatever the parser.
 */
export const projectSetOptions = {
  project: { type: 'string' },
  'require-email-verification': { type: 'string' },
} as const;

export const PROJECT_SET_USAGE = 'cms project set --project UUID --require-email-verification true|false';

const BOOLEAN_WORDS: Record<string, boolean> = { true: true, false: false, yes: true, no: false, on: true, off: false, '1': true, '0': false };

export async function projectSet(
  values: Record<string, string | boolean | undefined>,
  openDb: () => Promise<Database>,
  usageError: (message: string) => Error,
): Promise<{ uuid: string; require_email_verification: boolean }> {
  const uuid = typeof values.project === 'string' ? values.project.trim().toLowerCase() : '';
  if (!uuid) throw usageError('--project is required.');
  if (!isUuid(uuid)) throw usageError('--project must be a project UUID (as printed by "cms project create").');
  const raw = values['require-email-verification'];
  if (raw === undefined) throw usageError('Nothing to set: pass --require-email-verification true|false.');
  const flag = typeof raw === 'string' ? BOOLEAN_WORDS[raw.trim().toLowerCase()] : undefined;
  if (flag === undefined) throw usageError('--require-email-verification must be true or false.');
  const db = await openDb();
  const p = await updateProjectSettingsByUuid(db.prisma, uuid, { require_email_verification: flag });
  return { uuid: p.uuid, require_email_verification: p.requireEmailVerification };
}
