import type { EnumRef, ImplementableInputObjectRef, InputObjectRef } from '@pothos/core';
import type { TypedBuilder, TypedTypes } from './builder.ts';
import type { CollectionLayout, FieldLayout } from './layout.ts';
import type { NameRegistry } from './names.ts';
import type { InputPlan, WherePlan } from './convert.ts';
import type { TypeRefs } from './entry-types.ts';
import type { Input } from './shared.ts';

type T = PothosSchemaTypes.ExtendDefaultTypes<TypedTypes>;
type InputRef = InputObjectRef<T, Input>;
type InputFieldBuilder = PothosSchemaTypes.InputFieldBuilder<T, 'InputObject'>;

/** Inputs and the plans that turn their values back into the REST shapes (convert.ts). */
export interface CollectionInputs {
  where: InputRef;
  relationFilter: InputRef;
  sort: EnumRef<T, string>;
  input: InputRef;
  patchInput: InputRef;
  wherePlan: WherePlan;
  inputPlan: InputPlan;
}

/** Entry columns every `where` offers: GraphQL name → core column (src/filtering CORE_COLUMNS). */
const SYSTEM_COLUMNS: Array<[string, string, 'int' | 'id' | 'string' | 'dateTime']> = [
  ['id', 'id', 'int'],
  ['uuid', 'uuid', 'id'],
  ['locale', 'locale', 'string'],
  ['createdAt', 'created_at', 'dateTime'],
  ['updatedAt', 'updated_at', 'dateTime'],
  ['publishedAt', 'published_at', 'dateTime'],
];

function inputPlan(fields: FieldLayout[]): InputPlan {
  return new Map(fields.map((f) => [f.name, { name: f.def.name, ...(f.children ? { children: inputPlan(f.children) } : {}) }]));
}

/** The data input fields of an entry or a group (write shape: references are UUIDs). */
function dataFields(t: InputFieldBuilder, fields: FieldLayout[], refs: TypeRefs, required: boolean) {
  const out: Record<string, ReturnType<InputFieldBuilder['field']>> = {};
  for (const f of fields) {
    const def = f.def;
    const o = def.options;
    const base = def.description || (def.label !== def.name ? def.label : undefined);
    const description = required && def.validations.required?.status ? `${base ? `${base} ` : ''}(required)` : base;
    let type: unknown;
    let list = false;
    switch (def.type) {
      case 'media':
        type = 'ID';
        list = o.media?.type === 2;
        break;
      case 'relation':
        type = 'ID';
        list = o.relation?.type === 2;
        break;
      case 'group':
        type = refs.groupInputs.get(f.groupInput!);
        list = o.repeatable === true;
        break;
      case 'enumeration':
        type = refs.enums.get(f.enumName!);
        list = o.multiple === true;
        break;
      default:
        type =
          def.type === 'date' && o.mode === 'range' ? refs.shared.dateRangeInput
          : def.type === 'number' ? 'Float'
          : def.type === 'boolean' ? 'Boolean'
          : def.type === 'json' ? 'JSON'
          : 'String';
        list = o.repeatable === true && def.type !== 'boolean' && def.type !== 'json' && def.type !== 'richtext';
    }
    out[f.name] = t.field({ type: (list ? [type] : type) as never, description });
  }
  // GraphQL input objects need at least one field, but a collection is usually created before its
  // fields (and a group before its children): a documented placeholder keeps the schema valid.
  if (Object.keys(out).length === 0) {
    out._empty = t.boolean({ description: 'Placeholder while this type has no fields; ignored.' });
  }
  return out;
}

function defineGroupInputs(b: TypedBuilder, fields: FieldLayout[], refs: TypeRefs): void {
  for (const f of fields) {
    if (!f.groupInput || !f.children) continue;
    const children = f.children;
    defineGroupInputs(b, children, refs);
    refs.groupInputs.set(f.groupInput, b.inputRef<Input>(f.groupInput).implement({ fields: (t) => dataFields(t, children, refs, false) as never }));
  }
}

/** A filter input over one enumeration's own values. */
function enumFilter(b: TypedBuilder, types: NameRegistry, enumRef: EnumRef<T, string>, enumName: string): InputRef {
  return b.inputRef<Input>(types.claim(`${enumName}Filter`)).implement({
    fields: (t) => ({
      eq: t.field({ type: enumRef }),
      not: t.field({ type: enumRef }),
      in: t.field({ type: [enumRef] }),
      notIn: t.field({ type: [enumRef] }),
      null: t.boolean(),
      notNull: t.boolean(),
    }),
  });
}

interface FilterContext {
  b: TypedBuilder;
  types: NameRegistry;
  refs: TypeRefs;
  enumFilters: Map<string, InputRef>;
  /** Relation filters by target collection id. */
  relationFilters: Map<number, InputRef>;
}

/** The filter input of one custom field, or null when the field cannot be filtered. */
function fieldFilter(c: FilterContext, f: FieldLayout): InputRef | null {
  const def = f.def;
  const filters = c.refs.shared.filters;
  switch (def.type) {
    case 'password':
      return null;
    case 'number':
      return filters.float;
    case 'boolean':
      return filters.boolean;
    case 'date':
      return filters.date;
    case 'json':
    case 'group':
      return filters.json;
    case 'media':
      return filters.reference;
    case 'relation': {
      const target = def.options.relation?.collection;
      return (typeof target === 'number' && c.relationFilters.get(target)) || filters.reference;
    }
    case 'enumeration': {
      let ref = c.enumFilters.get(f.enumName!);
      if (!ref) {
        ref = enumFilter(c.b, c.types, c.refs.enums.get(f.enumName!)!, f.enumName!);
        c.enumFilters.set(f.enumName!, ref);
      }
      return ref;
    }
    default:
      return filters.string;
  }
}

function filterFields(t: InputFieldBuilder, c: FilterContext, l: CollectionLayout) {
  const filters = c.refs.shared.filters;
  const out: Record<string, ReturnType<InputFieldBuilder['field']>> = {};
  for (const [name, , kind] of SYSTEM_COLUMNS) out[name] = t.field({ type: filters[kind] });
  for (const f of l.fields) {
    if (!f.output) continue;
    const ref = fieldFilter(c, f);
    if (ref) out[f.name] = t.field({ type: ref });
  }
  return out;
}

/**
 * The related entry's own conditions, offered directly on a relation filter: every filter of the
 * target but its relations (filters reach one level deep) and a field named `where` (that name is
 * the relation filter's own; such a field stays reachable under `where`). The reference operators
 * (`eq`, `in`, `null`, ...) are reserved field names, so nothing else can clash.
 */
function relatedEntryFields(t: InputFieldBuilder, c: FilterContext, target: CollectionLayout) {
  const all = filterFields(t, c, target);
  for (const f of target.fields) if (f.def.type === 'relation' || f.name === 'where') delete all[f.name];
  return all;
}

/** Plans are built in collection order; a relation's target plan is looked up when a filter is converted. */
function wherePlanOf(l: CollectionLayout, plans: Map<number, WherePlan>, known: Set<number>): WherePlan {
  const plan: WherePlan = new Map(SYSTEM_COLUMNS.map(([name, column]) => [name, { kind: 'ops', key: column }]));
  for (const f of l.fields) {
    if (!f.output || f.def.type === 'password') continue;
    const target = f.def.options.relation?.collection;
    if (f.def.type === 'relation' && typeof target === 'number' && known.has(target)) {
      plan.set(f.name, { kind: 'relation', key: f.def.name, target: () => plans.get(target) ?? new Map() });
    } else {
      plan.set(f.name, { kind: 'ops', key: f.def.name });
    }
  }
  return plan;
}

const SORTABLE = new Set(['text', 'longtext', 'slug', 'email', 'color', 'time', 'number', 'boolean', 'enumeration', 'date']);

function sortValues(l: CollectionLayout): Record<string, { value: string }> {
  const values: Record<string, { value: string }> = {};
  const add = (name: string, key: string) => {
    values[`${name}_ASC`] = { value: `${key}:ASC` };
    values[`${name}_DESC`] = { value: `${key}:DESC` };
  };
  add('id', 'id');
  add('createdAt', 'created_at');
  add('updatedAt', 'updated_at');
  add('publishedAt', 'published_at');
  for (const f of l.fields) {
    const o = f.def.options;
    if (!f.output || !SORTABLE.has(f.def.type) || o.repeatable || o.multiple || o.mode === 'range') continue;
    add(f.name, f.def.name);
  }
  return values;
}

export function defineInputs(b: TypedBuilder, types: NameRegistry, layouts: CollectionLayout[], refs: TypeRefs): Map<number, CollectionInputs> {
  for (const l of layouts) defineGroupInputs(b, l.fields, refs);
  const wheres = new Map<number, ImplementableInputObjectRef<T, Input>>(layouts.map((l) => [l.schema.id, b.inputRef<Input>(l.names.where)]));
  const relationFilters = new Map<number, InputRef>();
  for (const l of layouts) {
    const targetWhere = wheres.get(l.schema.id)!;
    relationFilters.set(
      l.schema.id,
      b.inputRef<Input>(l.names.relationFilter).implement({
        description: `Conditions on a relation to ${l.names.type}: operators on the reference itself, and conditions on the related entry's fields, written directly (\`author: { name: { like: "ann" } }\`, as REST's \`where[author][name][like]\`) or under \`where\` (one level deep).`,
        fields: (t) => ({
          ...relatedEntryFields(t, context, l),
          eq: t.id(),
          not: t.id(),
          in: t.idList(),
          notIn: t.idList(),
          null: t.boolean({ description: 'true: no related entry; false: has one.' }),
          notNull: t.boolean({ description: 'true: has a related entry; false: has none.' }),
          where: t.field({ type: targetWhere, description: 'Conditions on the related entry.' }),
        }),
      }),
    );
  }
  const context: FilterContext = { b, types, refs, enumFilters: new Map(), relationFilters };
  const plans = new Map<number, WherePlan>();
  const known = new Set(layouts.map((l) => l.schema.id));
  for (const l of layouts) plans.set(l.schema.id, wherePlanOf(l, plans, known));
  const out = new Map<number, CollectionInputs>();
  for (const l of layouts) {
    const where = wheres.get(l.schema.id)!;
    where.implement({
      description: `Conditions on ${l.names.type} entries; fields are ANDed, \`or\`/\`and\` take lists of groups.`,
      fields: (t) => ({
        and: t.field({ type: [where] }),
        or: t.field({ type: [where] }),
        ...filterFields(t, context, l),
      }) as never,
    });
    out.set(l.schema.id, {
      where,
      relationFilter: relationFilters.get(l.schema.id)!,
      sort: b.enumType(l.names.sort, { values: sortValues(l) }) as EnumRef<T, string>,
      input: b.inputRef<Input>(l.names.input).implement({
        description: `A new ${l.names.type}. Validation (required fields, formats) answers 422 with a field map, as over REST.`,
        fields: (t) => dataFields(t, l.fields, refs, true) as never,
      }),
      patchInput: b.inputRef<Input>(l.names.patchInput).implement({
        description: `Changes to a ${l.names.type}: only the fields sent are replaced; null clears a field.`,
        fields: (t) => dataFields(t, l.fields, refs, false) as never,
      }),
      wherePlan: plans.get(l.schema.id)!,
      inputPlan: inputPlan(l.fields),
    });
  }
  return out;
}
