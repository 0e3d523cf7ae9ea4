import type { FieldDef } from '../collections/model.ts';
import type { FieldPlan, Plan } from './plan.ts';

/**
 * A plan as the list of changes people and scripts read (`cms schema diff`, POST
 * /api/project/schema/diff). `destructive` marks what removes data or configuration: a collection
 * (with its entries and versions), a field (its values stop being served), a locale, a webhook, a
 * trusted document; apply refuses those unless told to go ahead.
 */
export interface SchemaChange {
  action: 'create' | 'update' | 'delete';
  kind: 'locale' | 'default_locale' | 'collection' | 'field' | 'webhook' | 'trusted_document' | 'trusted_documents_enforcement';
  /** `posts`, `posts.seo.meta-title`, `fr`, a webhook's name, a document's sha256. */
  target: string;
  changes?: Record<string, { from: unknown; to: unknown }>;
  destructive: boolean;
}

export interface SchemaDiff {
  changes: SchemaChange[];
  /** How many of the changes are destructive. */
  destructive: number;
}

const attrs = (c: Record<string, [unknown, unknown]>) => Object.fromEntries(Object.entries(c).map(([k, [from, to]]) => [k, { from, to }]));

function fieldChanges(out: SchemaChange[], prefix: string, plans: FieldPlan[], removed: FieldDef[]): void {
  for (const f of removed) out.push({ action: 'delete', kind: 'field', target: `${prefix}${f.name}`, destructive: true });
  for (const p of plans) {
    const target = `${prefix}${p.current?.name ?? p.draft.name}`;
    if (!p.current) out.push({ action: 'create', kind: 'field', target: `${prefix}${p.draft.name}`, changes: { type: { from: null, to: p.draft.type } }, destructive: false });
    else if (Object.keys(p.changes).length) out.push({ action: 'update', kind: 'field', target, changes: attrs(p.changes), destructive: false });
    fieldChanges(out, `${prefix}${p.draft.name}.`, p.children, p.removedChildren);
  }
}

export function describePlan(plan: Plan): SchemaDiff {
  const out: SchemaChange[] = [];
  if (plan.locales) {
    for (const l of plan.locales.add) out.push({ action: 'create', kind: 'locale', target: l, destructive: false });
    if (plan.locales.default) out.push({ action: 'update', kind: 'default_locale', target: plan.locales.default[1], changes: attrs({ default: plan.locales.default }), destructive: false });
    for (const l of plan.locales.remove) out.push({ action: 'delete', kind: 'locale', target: l, destructive: true });
  }
  for (const c of plan.removedCollections) out.push({ action: 'delete', kind: 'collection', target: c.slug, destructive: true });
  for (const c of plan.collections) {
    if (!c.current) out.push({ action: 'create', kind: 'collection', target: c.doc.slug, changes: attrs({ name: [null, c.doc.name] }), destructive: false });
    else if (Object.keys(c.changes).length) out.push({ action: 'update', kind: 'collection', target: c.current.slug, changes: attrs(c.changes), destructive: false });
    fieldChanges(out, `${c.doc.slug}.`, c.fields, c.removedFields);
  }
  if (plan.webhooks) {
    for (const w of plan.webhooks.removed) out.push({ action: 'delete', kind: 'webhook', target: w.name, destructive: true });
    for (const w of plan.webhooks.plans) {
      if (!w.current) out.push({ action: 'create', kind: 'webhook', target: w.doc.name, destructive: false });
      else if (Object.keys(w.changes).length) out.push({ action: 'update', kind: 'webhook', target: w.current.name, changes: attrs(w.changes), destructive: false });
    }
  }
  if (plan.trusted) {
    for (const h of plan.trusted.add) out.push({ action: 'create', kind: 'trusted_document', target: h, destructive: false });
    for (const h of plan.trusted.remove) out.push({ action: 'delete', kind: 'trusted_document', target: h, destructive: true });
    if (plan.trusted.enforced) out.push({ action: 'update', kind: 'trusted_documents_enforcement', target: 'enforced', changes: attrs({ enforced: plan.trusted.enforced }), destructive: false });
  }
  return { changes: out, destructive: out.filter((c) => c.destructive).length };
}

const SIGN = { create: '+', update: '~', delete: '-' } as const;
const show = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? 'null');

/** One line per change, `+` create, `~` update, `-` delete, destructive ones marked. */
export function renderDiff(diff: SchemaDiff): string {
  if (diff.changes.length === 0) return 'No changes: the project already matches the document.';
  const lines = diff.changes.map((c) => {
    const detail = c.changes
      ? ': ' +
        Object.entries(c.changes)
          .map(([k, { from, to }]) => (from === null && c.action === 'create' ? `${k} ${show(to)}` : `${k} ${show(from)} → ${show(to)}`))
          .join(', ')
      : '';
    return `${SIGN[c.action]} ${c.kind.replace(/_/g, ' ')} ${c.target}${detail}${c.destructive ? '  [destructive]' : ''}`;
  });
  const n = diff.changes.length;
  lines.push('', `${n} change${n === 1 ? '' : 's'}, ${diff.destructive} destructive${diff.destructive ? ' (apply needs --allow-destructive)' : ''}.`);
  return lines.join('\n');
}
