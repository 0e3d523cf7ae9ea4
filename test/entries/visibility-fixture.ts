import { expect } from 'vitest';
import type { TestApp, TestProject } from '../helpers/app.ts';
import { world, collection, field } from '../helpers/world.ts';

/**
 * A content model with values that must never leave the server: `vaults` has a `hiddenInAPI` text
 * field, a password field and a group with a hidden child; `shelves` links vaults (nested reads).
 */

export const SECRET_V1 = 'S3cretInternalOne';
export const SECRET_V2 = 'S3cretInternalTwo';
export const GROUP_SECRET = 'S3cretGroupCode';
export const PIN = 'S3cretPinValue';

export interface VisibilityWorld {
  vaults: { id: number; uuid: string };
  shelves: { id: number; uuid: string };
  /** Every secret string, password hashes included once known. */
  secrets: string[];
  /** Secret strings found in `text`. */
  leaks(text: string): string[];
  /** Reads the stored password hashes so that they count as secrets too. */
  collectHashes(): Promise<void>;
}

export async function visibilityWorld(t: TestApp, p: TestProject): Promise<VisibilityWorld> {
  const db = t.database.prisma;
  const { c } = await world({
    app: t,
    project: p,
    collections: [
      collection('vaults', [
        field.text('title'),
        field.hidden('internal'),
        { name: 'pin', type: 'password' },
        { name: 'extra', type: 'group', children: [field.text('note'), field.hidden('code')] },
      ]),
      collection('shelves', [field.text('name'), field.relation('vault', 'vaults')]),
    ],
  });
  const [vaults, shelves] = [c.vaults, c.shelves];
  const secrets = [SECRET_V1, SECRET_V2, GROUP_SECRET, PIN];
  return {
    vaults: { id: vaults.id, uuid: vaults.uuid },
    shelves: { id: shelves.id, uuid: shelves.uuid },
    secrets,
    leaks: (text) => secrets.filter((s) => text.includes(s)),
    async collectHashes() {
      const rows = await db.$queryRaw<Array<{ h: string | null }>>`
        SELECT data ->> 'pin' AS h FROM entries WHERE collection_id = ${vaults.id}`;
      for (const r of rows) if (r.h && !secrets.includes(r.h)) secrets.push(r.h);
      expect(rows.some((r) => r.h), 'a password hash is stored').toBe(true);
    },
  };
}

/** The data of a vault entry carrying every kind of secret. */
export const secretData = (title: string, internal = SECRET_V1) => ({
  title,
  internal,
  pin: PIN,
  extra: { note: `${title} note`, code: GROUP_SECRET },
});
