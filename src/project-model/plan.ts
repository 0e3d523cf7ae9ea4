import { ErrorBag } from '../errors.ts';
import { parseFieldDoc, type FieldDraft } from '../collections/field-rules.ts';
import type { CollectionSchema, FieldDef } from '../collections/model.ts';
import { localeCode } from '../projects/operations.ts';
import { canonical, type CollectionDoc, type FieldDoc, type SchemaDocument, type WebhookDoc } from './document.ts';
import { portableOptions, type LiveModel } from './snapshot.ts';

/**
 * How the live model becomes the document: each desired collection, field and webhook matched to
 * what exists (by uuid, then by slug / name at the same level / webhook name), what is left over to
 * delete, and the attribute changes. Apply executes it; diff describes it (changes.ts).
 */
export interface FieldPlan {
  doc: FieldDoc;
  draft: FieldDraft;
  current?: FieldDef;
  /** Attribute → [now, wanted], for a matched field whose stored form differs. */
  changes: Record<string, [unknown, unknown]>;
  children: FieldPlan[];
  /** Children of a matched group the document no longer has. */
  removedChildren: FieldDef[];
}

export interface CollectionPlan {
  doc: CollectionDoc;
  current?: CollectionSchema;
  changes: Record<string, [unknown, unknown]>;
  fields: FieldPlan[];
  removedFields: FieldDef[];
}

export interface WebhookPlan {
  doc: WebhookDoc;
  current?: WebhookDoc & { uuid: string };
  changes: Record<string, [unknown, unknown]>;
}

export interface Plan {
  locales?: { add: string[]; remove: string[]; default: [string, string] | null };
  collections: CollectionPlan[];
  removedCollections: CollectionSchema[];
  webhooks?: { plans: WebhookPlan[]; removed: Array<WebhookDoc & { uuid: string }> };
  trusted?: { add: string[]; remove: string[]; enforced: [boolean, boolean] | null; documents: Record<string, string>; enforce: boolean };
}

function matchBy<C, D>(currents: C[], docs: D[], keys: Array<[(c: C) => string | undefined, (d: D) => string | undefined]>): Array<C | undefined> {
  const free = new Set(currents);
  const out: Array<C | undefined> = docs.map(() => undefined);
  for (const [ofCurrent, ofDoc] of keys) {
    docs.forEach((d, i) => {
      if (out[i]) return;
      const want = ofDoc(d);
      if (want === undefined) return;
      const hit = [...free].find((c) => ofCurrent(c) === want);
      if (hit) {
        out[i] = hit;
        free.delete(hit);
      }
    });
  }
  return out;
}

const diffAttrs = (pairs: Array<[string, unknown, unknown]>): Record<string, [unknown, unknown]> =>
  Object.fromEntries(pairs.filter(([, now, want]) => want !== undefined && canonical(now) !== canonical(want)).map(([k, now, want]) => [k, [now, want]]));

/** A field document through the field rules (one set of rules: src/collections/field-rules.ts). */
function draftOf(doc: FieldDoc, bag: ErrorBag, path: string, inGroup: boolean): FieldDraft | null {
  const { uuid: _uuid, children: _children, ...rest } = doc;
  return parseFieldDoc(rest, bag, { path, inGroup, allowChildren: false });
}

function planFields(
  docs: FieldDoc[],
  currents: FieldDef[],
  bag: ErrorBag,
  path: string,
  inGroup: boolean,
  slugOf: (id: number) => string | undefined,
): { plans: FieldPlan[]; removed: FieldDef[] } {
  const matched = matchBy(currents, docs, [
    [(c) => c.uuid, (d) => d.uuid],
    [(c) => c.name, (d) => d.name],
  ]);
  const plans: FieldPlan[] = [];
  docs.forEach((doc, i) => {
    const key = `${path}${doc.name || i}.`;
    const draft = draftOf(doc, bag, key, inGroup);
    if (doc.children && doc.type !== 'group') bag.add(`${key}children`, 'Only group fields have children.');
    if (!draft) return;
    const current = matched[i];
    const wantedOptions = portableOptions(draft.options as Record<string, unknown>, slugOf);
    const changes = current
      ? diffAttrs([
          ['type', current.type, draft.type],
          ['name', current.name, draft.name],
          ['label', current.label, draft.label],
          ['description', current.description ?? null, draft.description],
          ['placeholder', current.placeholder ?? null, draft.placeholder],
          ['options', portableOptions(current.options as Record<string, unknown>, slugOf), wantedOptions],
          ['validations', current.validations, draft.validations],
          ['order', current.order, doc.order],
        ])
      : {};
    const nested = doc.type === 'group' ? planFields(doc.children ?? [], current?.type === 'group' ? current.children : [], bag, `${key}children.`, true, slugOf) : { plans: [], removed: [] };
    plans.push({ doc, draft, current, changes, children: nested.plans, removedChildren: nested.removed });
  });
  return { plans, removed: currents.filter((c) => !matched.includes(c)) };
}

const sorted = (xs: string[]) => [...xs].sort();

/** Plans the change from `live` to `doc`, or 422 naming every part of the document the rules refuse. */
export function planChanges(live: LiveModel, doc: SchemaDocument): Plan {
  const bag = new ErrorBag();
  const plan: Plan = { collections: [], removedCollections: [] };

  if (doc.locales) {
    const norm = (l: string, key: string) => {
      const r = localeCode.safeParse(l);
      if (!r.success) bag.add(key, r.error.issues[0].message);
      return r.success ? r.data : l;
    };
    const wanted = [...new Set(doc.locales.available.map((l, i) => norm(l, `locales.available.${i}`)))];
    const def = norm(doc.locales.default, 'locales.default');
    if (!wanted.includes(def)) bag.add('locales.default', 'The default locale must be one of the available locales.');
    plan.locales = {
      add: wanted.filter((l) => !live.project.locales.includes(l)),
      remove: live.project.locales.filter((l) => !wanted.includes(l)),
      default: def !== live.project.defaultLocale ? [live.project.defaultLocale, def] : null,
    };
  }

  const slugs = new Map(live.collections.map((c) => [c.id, c.slug]));
  // A relation names its target by slug; a collection renamed by this document is known by its new slug.
  const matched = matchBy(live.collections, doc.collections, [
    [(c) => c.uuid, (d) => d.uuid],
    [(c) => c.slug, (d) => d.slug],
  ]);
  matched.forEach((c, i) => c && slugs.set(c.id, doc.collections[i].slug));
  const slugOf = (id: number) => slugs.get(id);
  const seen = new Set<string>();
  doc.collections.forEach((cdoc, i) => {
    if (seen.has(cdoc.slug)) bag.add(`collections.${i}.slug`, 'The slug appears twice in the document.');
    seen.add(cdoc.slug);
    const current = matched[i];
    if (current && current.isSingleton !== cdoc.is_singleton) {
      bag.add(`collections.${cdoc.slug}.is_singleton`, 'is_singleton is fixed when a collection is created; delete the collection and create it again to change it.');
    }
    const { plans, removed } = planFields(cdoc.fields, current?.fields ?? [], bag, `collections.${cdoc.slug}.fields.`, false, slugOf);
    plan.collections.push({
      doc: cdoc,
      current,
      changes: current ? diffAttrs([['name', current.name, cdoc.name], ['slug', current.slug, cdoc.slug], ['order', current.row.order, cdoc.order]]) : {},
      fields: plans,
      removedFields: removed,
    });
  });
  plan.removedCollections = live.collections.filter((c) => !matched.includes(c));

  if (doc.webhooks) {
    const known = new Set(doc.collections.map((c) => c.slug));
    const hooks = matchBy(live.webhooks, doc.webhooks, [
      [(c) => c.uuid, (d) => d.uuid],
      [(c) => c.name, (d) => d.name],
    ]);
    const plans = doc.webhooks.map((w, i): WebhookPlan => {
      w.collections.forEach((s, j) => known.has(s) || bag.add(`webhooks.${i}.collections.${j}`, `The collection "${s}" is not in the document.`));
      const current = hooks[i];
      const changes = current
        ? diffAttrs([
            ['name', current.name, w.name],
            ['description', current.description, w.description],
            ['url', current.url, w.url],
            ['events', sorted(current.events), sorted(w.events)],
            ['sources', sorted(current.sources), sorted(w.sources)],
            ['payload', current.payload, w.payload],
            ['status', current.status, w.status],
            ['collections', sorted(current.collections), sorted(w.collections)],
          ])
        : {};
      return { doc: w, current, changes };
    });
    plan.webhooks = { plans, removed: live.webhooks.filter((w) => !hooks.includes(w)) };
  }

  if (doc.trusted_documents) {
    const wanted = Object.fromEntries(Object.entries(doc.trusted_documents.documents).map(([h, t]) => [h.toLowerCase(), t]));
    const current = live.trusted;
    plan.trusted = {
      add: Object.keys(wanted).filter((h) => !(h in current.documents)),
      remove: Object.keys(current.documents).filter((h) => !(h in wanted)),
      enforced: current.enforced !== doc.trusted_documents.enforced ? [current.enforced, doc.trusted_documents.enforced] : null,
      documents: wanted,
      enforce: doc.trusted_documents.enforced,
    };
  }
  bag.throwIfAny('The schema document cannot be applied: ' + firstProblem(bag));
  return plan;
}

function firstProblem(bag: ErrorBag): string {
  const [key, msgs] = Object.entries(bag.errors)[0] ?? ['', ['']];
  return `${key}: ${msgs[0]}`;
}
