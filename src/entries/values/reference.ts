import type { FieldDef } from '../../collections/model.ts';
import { isUuid } from '../types.ts';
import { label, type ValueContext } from './common.ts';

const MAX_INT4 = 2_147_483_647;

/** One reference as sent: an entry/asset UUID or its numeric id. Anything else (e.g. a nested read object) is rejected. */
function parseRef(v: unknown): { uuid?: string; id?: number } | null {
  if (isUuid(v)) return { uuid: v.toLowerCase() };
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,10}$/.test(v) ? Number(v) : NaN;
  if (Number.isInteger(n) && n > 0 && n <= MAX_INT4) return { id: n };
  return null;
}

const refMessage = (f: FieldDef) =>
  f.type === 'media'
    ? `The ${label(f)} field must hold asset UUIDs or ids.`
    : `The ${label(f)} field must hold entry UUIDs or ids (send the uuid, not a nested entry object).`;

/**
 * Media (`options.media.type` 2 = multiple) and relation (`options.relation.type` 2 = one-to-many)
 * values: one reference or an array of them. Each reference is queued for the batch lookup and
 * replaced in place by the target's UUID once found.
 */
export function normalizeReferences(f: FieldDef, v: unknown, key: string, vc: ValueContext, set: (value: unknown) => void): void {
  const kind = f.type === 'media' ? 'media' : 'relation';
  const many = kind === 'media' ? f.options.media?.type === 2 : f.options.relation?.type === 2;
  if (!many) {
    if (Array.isArray(v)) {
      if (v.length !== 1) return vc.bag.add(key, `The ${label(f)} field takes a single reference, not a list.`);
      v = v[0];
    }
    const ref = parseRef(v);
    if (!ref) return vc.bag.add(key, refMessage(f));
    set(null);
    vc.refs.push({ kind, field: f, key, ...ref, assign: (uuid) => set(uuid) });
    return;
  }
  const list = Array.isArray(v) ? v : [v];
  const out: Array<string | null> = list.map(() => null);
  list.forEach((item, i) => {
    const ref = parseRef(item);
    if (!ref) return vc.bag.add(`${key}.${i}`, refMessage(f));
    vc.refs.push({ kind, field: f, key: `${key}.${i}`, ...ref, assign: (uuid) => (out[i] = uuid) });
  });
  set(out);
}
