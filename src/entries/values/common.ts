import type { ErrorBag } from '../../errors.ts';
import type { FieldDef } from '../../collections/model.ts';

/** A media or relation reference waiting for the batch lookup; `assign` writes the resolved UUID in place. */
export interface PendingRef {
  kind: 'media' | 'relation';
  field: FieldDef;
  key: string;
  uuid?: string;
  id?: number;
  assign: (uuid: string) => void;
}

/** Collected while normalizing a batch; resolved afterwards with one query per kind. */
export interface ValueContext {
  bag: ErrorBag;
  refs: PendingRef[];
  /** Work that must finish before the values are stored (password hashing). */
  deferred: Array<() => Promise<void>>;
}

/** Result of one scalar parse: a value to store, or an error message. */
export type Parsed = { ok: true; value: unknown } | { ok: false; message: string };
export const ok = (value: unknown): Parsed => ({ ok: true, value });
export const fail = (message: string): Parsed => ({ ok: false, message });

/** `null`, `''` and `[]` mean "no value" for every type (Laravel's empty-string-to-null convention). */
export const isEmptyValue = (v: unknown): boolean =>
  v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export const label = (f: FieldDef): string => f.label || f.name;

export function requiredMessage(f: FieldDef): string {
  return f.validations.required?.message || `The ${label(f)} field is required.`;
}

/** charcount (docs/foundation.md): string length for text-like types, the numeric value for numbers. */
export function checkCharcount(f: FieldDef, value: unknown): string | null {
  const rule = f.validations.charcount;
  if (!rule?.status) return null;
  const isNumber = typeof value === 'number';
  const measure = isNumber ? (value as number) : typeof value === 'string' ? [...value].length : null;
  if (measure === null) return null;
  const min = rule.type === 'Max' ? undefined : rule.min;
  const max = rule.type === 'Min' ? undefined : rule.max;
  const tooSmall = min !== undefined && min !== null && measure < Number(min);
  const tooBig = max !== undefined && max !== null && measure > Number(max);
  if (!tooSmall && !tooBig) return null;
  if (rule.message) return rule.message;
  const unit = isNumber ? '' : ' characters';
  if (min !== undefined && min !== null && max !== undefined && max !== null) {
    return isNumber ? `The ${label(f)} field must be between ${min} and ${max}.` : `The ${label(f)} field must be between ${min} and ${max}${unit}.`;
  }
  if (tooSmall) return isNumber ? `The ${label(f)} field must be at least ${min}.` : `The ${label(f)} field must be at least ${min}${unit}.`;
  return isNumber ? `The ${label(f)} field must not be greater than ${max}.` : `The ${label(f)} field must not be greater than ${max}${unit}.`;
}
