import { z } from 'zod';
import type { ErrorBag } from '../errors.ts';
import { FIELD_TYPES, type FieldOptions, type FieldType, type FieldValidations } from './model.ts';

/** Field and collection names/slugs: lowercase kebab-case (docs/foundation.md). */
export const KEBAB_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Types whose values may be a list of scalars through `options.repeatable`. */
const REPEATABLE_SCALARS: readonly FieldType[] = ['text', 'longtext', 'email', 'number', 'color', 'date', 'time'];
/** Types that accept the `charcount` rule and (when single-valued and top-level) `unique`. */
const COUNTABLE: readonly FieldType[] = ['text', 'longtext', 'slug', 'email', 'number'];
/** Types with no validation rules at all (docs/foundation.md "none"). */
const NO_VALIDATIONS: readonly FieldType[] = ['boolean', 'group'];

const flag = z.boolean({ error: 'Must be true or false.' });
const message = z.string().max(255).nullish();
const toggleRule = z.object({ status: flag, message }).strict();

const common = { hideInContentList: flag.optional(), hiddenInAPI: flag.optional() };
const repeatable = { repeatable: flag.optional() };
/** Text-like fields are searched unless they opt out (docs/filtering.md, "Search"); other types have nothing to search. */
const searchable = { searchable: flag.optional() };

/** Option shapes per type; `.strict()` so an option that means nothing for the type is reported. */
const optionSchemas: Record<FieldType, z.ZodType> = {
  text: z.object({ ...common, ...repeatable, ...searchable }).strict(),
  longtext: z.object({ ...common, ...repeatable, ...searchable }).strict(),
  email: z.object({ ...common, ...repeatable, ...searchable }).strict(),
  number: z.object({ ...common, ...repeatable }).strict(),
  color: z.object({ ...common, ...repeatable }).strict(),
  time: z.object({ ...common, ...repeatable }).strict(),
  date: z
    .object({ ...common, ...repeatable, includeTime: flag.optional(), mode: z.enum(['single', 'range']).optional() })
    .strict(),
  richtext: z
    .object({
      ...common,
      ...searchable,
      editor: z
        .object({ type: z.literal(1).optional(), outputFormat: z.enum(['html', 'markdown']).optional() })
        .strict()
        .optional(),
    })
    .strict(),
  slug: z
    .object({
      ...common,
      ...searchable,
      slug: z
        .object({ field: z.string().regex(KEBAB_RE, 'Must name a text field of the collection.').nullish(), readonly: flag.optional() })
        .strict()
        .optional(),
    })
    .strict(),
  password: z.object(common).strict(),
  enumeration: z
    .object({
      ...common,
      enumeration: z
        .object({
          list: z
            .array(z.string().trim().min(1, 'Enumeration values cannot be empty.').max(255), { error: 'Must be a list of strings.' })
            .min(1, 'At least one enumeration value is required.')
            .max(1000)
            .refine((l) => new Set(l).size === l.length, 'Enumeration values must be distinct.'),
        })
        .strict(),
      multiple: flag.optional(),
    })
    .strict(),
  boolean: z.object(common).strict(),
  media: z
    .object({
      ...common,
      media: z.object({ type: z.union([z.literal(1), z.literal(2)], { error: 'Must be 1 (single) or 2 (multiple).' }) }).strict().optional(),
    })
    .strict(),
  relation: z
    .object({
      ...common,
      relation: z
        .object({
          collection: z.union([z.number().int().positive(), z.string().trim().min(1).max(60)], {
            error: 'Must be the id, slug or name of a collection.',
          }),
          type: z.union([z.literal(1), z.literal(2)], { error: 'Must be 1 (one-to-one) or 2 (one-to-many).' }),
        })
        .strict(),
      includeDraft: flag.optional(),
    })
    .strict(),
  json: z.object(common).strict(),
  group: z.object({ ...common, repeatable: flag }).strict(),
};

const charcountRule = z
  .object({
    status: flag,
    type: z.enum(['Between', 'Min', 'Max']),
    min: z.number().finite().nullish(),
    max: z.number().finite().nullish(),
    message,
  })
  .strict()
  .superRefine((r, c) => {
    if ((r.type === 'Between' || r.type === 'Min') && r.min == null) c.addIssue({ code: 'custom', path: ['min'], message: `A ${r.type} rule needs min.` });
    if ((r.type === 'Between' || r.type === 'Max') && r.max == null) c.addIssue({ code: 'custom', path: ['max'], message: `A ${r.type} rule needs max.` });
    if (r.type === 'Between' && r.min != null && r.max != null && r.min > r.max) c.addIssue({ code: 'custom', path: ['min'], message: 'min cannot exceed max.' });
  });

const validationsSchema = z
  .object({ required: toggleRule.optional(), unique: toggleRule.optional(), charcount: charcountRule.optional() })
  .strict();

const baseDoc = z.object({
  type: z.enum(FIELD_TYPES, { error: `The type must be one of: ${FIELD_TYPES.join(', ')}.` }),
  label: z.string({ error: 'The label is required.' }).trim().min(1, 'The label is required.').max(60),
  name: z
    .string({ error: 'The name is required.' })
    .max(60)
    .regex(KEBAB_RE, 'The name may only contain lowercase letters, digits and single dashes (e.g. "cover-image").'),
  description: z.string().max(2000).nullish(),
  placeholder: z.string().max(255).nullish(),
  options: z.record(z.string(), z.unknown()).nullish(),
  validations: z.record(z.string(), z.unknown()).nullish(),
  order: z.number().int().min(0).max(1_000_000).nullish(),
  parent_field_id: z.number().int().nullish(),
  children: z.array(z.unknown()).max(200).nullish(),
});

/** A validated field document, ready to store (relation targets still unresolved). */
export interface FieldDraft {
  type: FieldType;
  label: string;
  name: string;
  description: string | null;
  placeholder: string | null;
  options: FieldOptions & { relation?: { collection: number | string; type: 1 | 2 } };
  validations: FieldValidations;
  order: number | null;
  parentFieldId: number | null;
  children: FieldDraft[];
}

export interface ParseContext {
  /** Key prefix for error messages, e.g. `fields.2.` or `` for a single field. */
  path: string;
  inGroup: boolean;
  /** `children` is accepted only in create-collection, under a group. */
  allowChildren: boolean;
}

function addIssues(bag: ErrorBag, prefix: string, err: z.ZodError): void {
  for (const issue of err.issues) {
    const key = [prefix.replace(/\.$/, ''), ...issue.path.map(String)].filter(Boolean).join('.');
    let text = issue.message;
    if (issue.code === 'unrecognized_keys') {
      for (const k of issue.keys) bag.add(key ? `${key}.${k}` : k, `"${k}" is not accepted here.`);
      continue;
    }
    if (issue.code === 'invalid_type' && /received undefined/.test(text)) text = 'This value is required.';
    bag.add(key || 'body', text);
  }
}

/**
 * Checks one field document against docs/foundation.md and reports every problem into `bag` under
 * Laravel-style keys. Returns null when the document cannot be used. Cross-field rules (name
 * uniqueness among siblings, slug source fields, relation targets) are checked by the caller, which
 * knows the siblings.
 */
export function parseFieldDoc(input: unknown, bag: ErrorBag, pc: ParseContext): FieldDraft | null {
  const base = baseDoc.safeParse(input ?? {});
  if (!base.success) {
    addIssues(bag, pc.path, base.error);
    return null;
  }
  const doc = base.data;
  const type = doc.type;
  let ok = true;
  const fail = (key: string, text: string) => {
    bag.add(pc.path + key, text);
    ok = false;
  };

  if (pc.inGroup && (type === 'group' || type === 'password')) fail('type', 'A group cannot contain group or password fields.');

  const opts = optionSchemas[type].safeParse(doc.options ?? {});
  if (!opts.success) {
    addIssues(bag, `${pc.path}options.`, opts.error);
    ok = false;
  }
  const options = (opts.success ? opts.data : {}) as FieldDraft['options'];
  if (type === 'media' && !options.media) options.media = { type: 1 };

  const vals = validationsSchema.safeParse(doc.validations ?? {});
  if (!vals.success) {
    addIssues(bag, `${pc.path}validations.`, vals.error);
    ok = false;
  }
  const validations = (vals.success ? vals.data : {}) as FieldValidations;
  if (validations.required && NO_VALIDATIONS.includes(type)) fail('validations.required', `${type} fields take no validation rules.`);
  if (validations.charcount && !COUNTABLE.includes(type)) {
    fail('validations.charcount', 'charcount is only available for text, longtext, slug, email and number fields.');
  }
  if (validations.charcount && type !== 'number') {
    const { min, max } = validations.charcount;
    for (const [k, v] of [['min', min], ['max', max]] as const) {
      if (v != null && (!Number.isInteger(v) || v < 0)) fail(`validations.charcount.${k}`, 'Character counts must be whole numbers of 0 or more.');
    }
  }
  if (validations.unique) {
    if (!COUNTABLE.includes(type)) fail('validations.unique', 'unique is only available for text, longtext, slug, email and number fields.');
    else if (options.repeatable) fail('validations.unique', 'unique is not available for repeatable fields.');
    else if (pc.inGroup) fail('validations.unique', 'unique is not available for fields inside a group.');
  }
  if (options.repeatable && !REPEATABLE_SCALARS.includes(type) && type !== 'group') fail('options.repeatable', `${type} fields cannot be repeatable.`);

  const children: FieldDraft[] = [];
  if (doc.children != null) {
    if (!pc.allowChildren) fail('children', 'children are only accepted when creating a collection; add group children with parent_field_id.');
    else if (type !== 'group') fail('children', 'Only group fields have children.');
    else {
      const parsed = doc.children.map((child, i) =>
        parseFieldDoc(child, bag, { path: `${pc.path}children.${i}.`, inGroup: true, allowChildren: false }),
      );
      checkSiblings(parsed, bag, `${pc.path}children.`);
      for (const c of parsed) {
        if (c) children.push(c);
        else ok = false;
      }
    }
  }

  if (!ok) return null;
  return {
    type,
    label: doc.label,
    name: doc.name,
    description: doc.description ?? null,
    placeholder: doc.placeholder ?? null,
    options,
    validations,
    order: doc.order ?? null,
    parentFieldId: type === 'group' ? null : (doc.parent_field_id ?? null),
    children,
  };
}

/** A sibling as the cross-field checks see it (an existing field or a draft). */
export interface SiblingView {
  name: string;
  type: string;
}

/**
 * Rules between fields of one level: distinct names, and a slug field's source must be a text
 * field of the same level. `drafts` are indexed for error keys (`fields.3.name`); `existing` are
 * live fields already stored at that level (not reported).
 */
export function checkSiblings(
  drafts: Array<FieldDraft | null>,
  bag: ErrorBag,
  prefix: string,
  existing: SiblingView[] = [],
  keyOf: (i: number) => string = (i) => `${prefix}${i}.`,
): void {
  const seen = new Set(existing.map((f) => f.name));
  drafts.forEach((d, i) => {
    if (!d) return;
    if (seen.has(d.name)) bag.add(`${keyOf(i)}name`, 'The name has already been taken.');
    seen.add(d.name);
  });
  const all: SiblingView[] = [...existing, ...drafts.filter((d): d is FieldDraft => d !== null)];
  drafts.forEach((d, i) => {
    const source = d?.options.slug?.field;
    if (!d || d.type !== 'slug' || source == null) return;
    const target = all.find((f) => f.name === source);
    if (!target || target.type !== 'text') bag.add(`${keyOf(i)}options.slug.field`, `"${source}" is not a text field of this collection.`);
  });
}

/** Options that fix the shape of stored values; they change only while the collection has no entries. */
export function shapeOf(type: string, options: FieldOptions | Record<string, unknown>): string {
  const o = options as FieldOptions;
  return JSON.stringify([
    type,
    o.repeatable ?? false,
    o.multiple ?? false,
    o.media?.type ?? (type === 'media' ? 1 : null),
    o.relation?.type ?? null,
    o.relation?.collection ?? null,
    o.mode ?? 'single',
  ]);
}
