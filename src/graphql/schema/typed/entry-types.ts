import type { EnumRef, ImplementableObjectRef, InputObjectRef, ObjectRef } from '@pothos/core';
import { enumValueNames } from './names.ts';
import type { TypedBuilder, TypedTypes } from './builder.ts';
import type { CollectionLayout, FieldLayout } from './layout.ts';
import type { TypedEntry, TypedGroup } from './model.ts';
import type { Input, SharedTypes } from './shared.ts';
import { groupValue, mediaValue, relationValue, scalarValue } from './values.ts';
import { versionByNumber, versionPage } from '../../../entries/versions/batched.ts';

type T = PothosSchemaTypes.ExtendDefaultTypes<TypedTypes>;
type FieldBuilder<P> = PothosSchemaTypes.ObjectFieldBuilder<T, P>;

/** Every generated type, by name (enums, groups) or by collection id (entry types). */
export interface TypeRefs {
  shared: SharedTypes;
  entries: Map<number, ImplementableObjectRef<T, TypedEntry>>;
  enums: Map<string, EnumRef<T, string>>;
  groups: Map<string, ObjectRef<T, TypedGroup>>;
  groupInputs: Map<string, InputObjectRef<T, Input>>;
}

const LIST = { list: true, items: false } as const;

function defineEnums(b: TypedBuilder, fields: FieldLayout[], refs: TypeRefs): void {
  for (const f of fields) {
    if (f.enumName) {
      const values: Record<string, { value: string; description: string }> = {};
      for (const v of enumValueNames(f.def.options.enumeration?.list ?? [])) values[v.name] = { value: v.value, description: v.value };
      // An enumeration without values still needs one member to be a valid GraphQL enum.
      if (Object.keys(values).length === 0) values.EMPTY = { value: '', description: 'The field has no values configured.' };
      refs.enums.set(f.enumName, b.enumType(f.enumName, { description: `Values of ${f.def.label}.`, values }) as EnumRef<T, string>);
    }
    if (f.children) defineEnums(b, f.children, refs);
  }
}

/** The custom fields of an entry or group type. */
function customFields<P extends TypedGroup>(t: FieldBuilder<P>, fields: FieldLayout[], refs: TypeRefs) {
  const out: Record<string, ReturnType<FieldBuilder<P>['field']>> = {};
  for (const f of fields) {
    if (!f.output) continue;
    const def = f.def;
    const o = def.options;
    const description = def.description || (def.label !== def.name ? def.label : undefined);
    const raw = (p: P) => p.fields[def.name];
    switch (def.type) {
      case 'media': {
        const asset = refs.shared.asset;
        out[f.name] = o.media?.type === 2
          ? t.field({ type: [asset], nullable: LIST, description, resolve: (p) => mediaValue(def, raw(p)) as never })
          : t.field({ type: asset, description, resolve: (p) => mediaValue(def, raw(p)) as never });
        break;
      }
      case 'relation': {
        const targetId = o.relation?.collection;
        const target = typeof targetId === 'number' ? refs.entries.get(targetId) : undefined;
        const many = o.relation?.type === 2;
        if (!target || targetId === undefined) {
          // The target collection is gone: the stored references are all that can be shown.
          out[f.name] = many
            ? t.idList({ nullable: LIST, description, resolve: (p) => (Array.isArray(raw(p)) ? (raw(p) as string[]) : null) })
            : t.id({ description, resolve: (p) => (typeof raw(p) === 'string' ? (raw(p) as string) : null) });
          break;
        }
        out[f.name] = many
          ? t.field({ type: [target], nullable: LIST, description, resolve: (p, _a, c) => relationValue(c, def, raw(p), p.state, targetId, p.requestedLocale) as never })
          : t.field({ type: target, description, resolve: (p, _a, c) => relationValue(c, def, raw(p), p.state, targetId, p.requestedLocale) as never });
        break;
      }
      case 'group': {
        const group = refs.groups.get(f.groupType!)!;
        out[f.name] = o.repeatable
          ? t.field({ type: [group], nullable: LIST, description, resolve: (p) => groupValue(def, raw(p), p.state, p.requestedLocale) as never })
          : t.field({ type: group, description, resolve: (p) => groupValue(def, raw(p), p.state, p.requestedLocale) as never });
        break;
      }
      case 'enumeration': {
        const e = refs.enums.get(f.enumName!)!;
        out[f.name] = o.multiple
          ? t.field({ type: [e], nullable: LIST, description, resolve: (p) => scalarValue(def, raw(p)) as never })
          : t.field({ type: e, description, resolve: (p) => scalarValue(def, raw(p)) as never });
        break;
      }
      default: {
        const scalar =
          def.type === 'date' && o.mode === 'range' ? refs.shared.dateRange
          : def.type === 'number' ? 'Float'
          : def.type === 'boolean' ? 'Boolean'
          : def.type === 'json' ? 'JSON'
          : 'String';
        const repeatable = o.repeatable === true && def.type !== 'boolean' && def.type !== 'json' && def.type !== 'richtext';
        out[f.name] = repeatable
          ? t.field({ type: [scalar], nullable: LIST, description, resolve: (p: P) => scalarValue(def, raw(p)) } as never)
          : t.field({ type: scalar, description, resolve: (p: P) => scalarValue(def, raw(p)) } as never);
      }
    }
  }
  return out;
}

/** The core schema's version connection on every typed entry (batched per request by src/versions). */
function versionFields(t: FieldBuilder<TypedEntry>, refs: TypeRefs): Record<string, ReturnType<FieldBuilder<TypedEntry>['field']>> {
  const v = refs.shared.versions;
  if (!v) return {};
  return {
    versions: t.field({
      type: v.connection as never,
      // Needs `read`: a create-only token that selects it on a mutation's result gets this field null
      // with FORBIDDEN, and the rest of what it wrote.
      nullable: true,
      description: 'Versions of this entry, newest first; null with an error for a token without `read`.',
      args: { first: t.arg.int(), after: t.arg.string() },
      resolve: async (e: TypedEntry, args: { first?: number | null; after?: string | null }, c) => versionPage(await c.auth(), e.resource.id, args) as never,
    }),
    version: t.field({
      type: v.version as never,
      description: 'One version by number; null when there is no such version.',
      args: { number: t.arg.int({ required: true }) },
      resolve: async (e: TypedEntry, args: { number: number }, c) => versionByNumber(await c.auth(), e.resource.id, args.number) as never,
    }),
  };
}

function defineGroups(b: TypedBuilder, fields: FieldLayout[], refs: TypeRefs): void {
  for (const f of fields) {
    if (!f.groupType || !f.children) continue;
    const children = f.children;
    defineGroups(b, children, refs);
    refs.groups.set(
      f.groupType,
      b.objectRef<TypedGroup>(f.groupType).implement({
        description: `${f.def.label} (group).`,
        fields: (t) => {
          const out = customFields(t, children, refs);
          // A group may exist before its children; GraphQL object types need at least one field.
          if (Object.keys(out).length === 0) {
            out._empty = t.boolean({ nullable: true, description: 'Placeholder while this group has no fields; always null.', resolve: () => null });
          }
          return out;
        },
      }),
    );
  }
}

/** Declares every entry type first (relations may point anywhere), then implements them. */
export function defineEntryTypes(b: TypedBuilder, layouts: CollectionLayout[], shared: SharedTypes): TypeRefs {
  const refs: TypeRefs = { shared, entries: new Map(), enums: new Map(), groups: new Map(), groupInputs: new Map() };
  for (const l of layouts) refs.entries.set(l.schema.id, b.objectRef<TypedEntry>(l.names.type));
  for (const l of layouts) {
    defineEnums(b, l.fields, refs);
    defineGroups(b, l.fields, refs);
  }
  for (const l of layouts) {
    const ref = refs.entries.get(l.schema.id)!;
    ref.implement({
      description: `An entry of the collection "${l.schema.name}" (${l.schema.slug}).`,
      fields: (t) => ({
        id: t.int({ nullable: false, resolve: (e) => e.resource.id }),
        uuid: t.id({ nullable: false, resolve: (e) => e.resource.uuid }),
        locale: t.string({ nullable: false, resolve: (e) => e.resource.locale }),
        state: t.field({
          type: refs.shared.entryState,
          nullable: false,
          description: '`published` for a published read (the live snapshot), `draft` for the working draft.',
          resolve: (e) => e.resource.state,
        }),
        publishedAt: t.field({ type: 'DateTime', resolve: (e) => e.resource.published_at }),
        createdAt: t.field({ type: 'DateTime', resolve: (e) => e.resource.created_at ?? null }),
        updatedAt: t.field({ type: 'DateTime', resolve: (e) => e.resource.updated_at ?? null }),
        publishedVersionNumber: t.int({
          description: 'Version number of the live version; null while unpublished.',
          resolve: (e) => e.resource.published_version_number,
        }),
        isDraftDirty: t.boolean({ nullable: false, description: 'The working draft changed since the last publish.', resolve: (e) => e.resource.is_draft_dirty }),
        searchScore: t.float({
          description: "Relevance to the list's `search` (higher is closer); null outside a searching list.",
          resolve: (e) => e.resource.meta?.score ?? null,
        }),
        resolvedLocale: t.string({
          description: 'Read with `fallback: true`: the locale along the fallback chain that answered (the same as `locale`); null otherwise.',
          resolve: (e) => (e.resource.meta?.requested_locale ? e.resource.locale : null),
        }),
        requestedLocale: t.string({
          description: 'Read with `fallback: true`: the locale asked for; null otherwise.',
          resolve: (e) => e.resource.meta?.requested_locale ?? null,
        }),
        ...versionFields(t, refs),
        ...customFields(t, l.fields, refs),
      }),
    });
  }
  return refs;
}
