import type { CreateProjectInput } from '../../src/projects/operations.ts';
import type { FieldOptions, FieldType, FieldValidations } from '../../src/collections/model.ts';
import { startTestApp, type TestApp, type TestProject } from './app.ts';
import { createCollection, type FieldSpec } from './fixtures.ts';
import { startReceiver, type Receiver, type Responder } from './receiver.ts';

/**
 * The one world builder of the suite: an app on a fresh database, a project, named collections from
 * shared field presets, tokens with given abilities and, when asked, a webhook receiver.
 *
 *     const w = await world({ app: { env: { AUTH_CACHE_MS: '0' } }, collections: [posts()], tokens: { reader: ['read'] } });
 *     await w.api('GET', `/api/posts`, undefined, w.tokens.reader);
 *
 * Collections are made straight in the database (`via: 'db'`, the default: no request, no schema
 * invalidation) or through POST /api/collections (`via: 'api'`), as each test did before; the two
 * store different default names and labels (the slug and field name as given, or capitalised), so
 * a test keeps the one it was written against.
 */

/** A field as a test writes it: a relation may name its target by slug (resolved to the id). */
export interface WorldField {
  name: string;
  type: FieldType;
  label?: string;
  options?: Omit<FieldOptions, 'relation'> & { relation?: { collection: number | string; type: 1 | 2 } };
  validations?: FieldValidations;
  children?: WorldField[];
}

export interface CollectionSpec {
  slug: string;
  /** Defaults: the slug (db) or the capitalised slug (api). */
  name?: string;
  isSingleton?: boolean;
  fields: WorldField[];
}

export interface WorldCollection {
  id: number;
  uuid: string;
  slug: string;
  name: string;
  /** Top-level and child fields in stored order. */
  fields: Array<{ uuid: string; name: string }>;
}

type Extra = Partial<Pick<WorldField, 'label' | 'options' | 'validations'>>;

/** Field presets. */
export const field = {
  text: (name: string, extra: Extra = {}): WorldField => ({ name, type: 'text', ...extra }),
  number: (name: string, extra: Extra = {}): WorldField => ({ name, type: 'number', ...extra }),
  boolean: (name: string, extra: Extra = {}): WorldField => ({ name, type: 'boolean', ...extra }),
  /** A text field the API never shows. */
  hidden: (name: string): WorldField => ({ name, type: 'text', options: { hiddenInAPI: true } }),
  required: (name: string, type: FieldType = 'text'): WorldField => ({ name, type, validations: { required: { status: true } } }),
  /** `type` 1: one target, 2: many. */
  relation: (name: string, collection: string | number, type: 1 | 2 = 1, extra: Omit<FieldOptions, 'relation'> = {}, label?: string): WorldField => ({
    name,
    type: 'relation',
    ...(label ? { label } : {}),
    options: { relation: { collection, type }, ...extra },
  }),
};

/** The suite's common `posts`: a text title, then whatever a test adds. */
export const posts = (...extra: WorldField[]): CollectionSpec => ({ slug: 'posts', fields: [field.text('title'), ...extra] });
/** `authors` with a text name. */
export const authors = (...extra: WorldField[]): CollectionSpec => ({ slug: 'authors', fields: [field.text('name'), ...extra] });
/** Any collection. */
export const collection = (slug: string, fields: WorldField[], more: Omit<CollectionSpec, 'slug' | 'fields'> = {}): CollectionSpec => ({ slug, fields, ...more });

export interface WorldOptions {
  /** An app the caller owns, or the options to start one that the world closes. */
  app?: TestApp | Parameters<typeof startTestApp>[0];
  /** A project to make (its input), or one the test already has. */
  project?: Partial<CreateProjectInput> | TestProject;
  /** How collections are made (see above). */
  via?: 'db' | 'api';
  /** Made in order; a relation may target any collection listed before it (or itself via api). */
  collections?: CollectionSpec[];
  /** Named tokens of the project: `{ reader: ['read'] }` gives `w.tokens.reader` as headers. */
  tokens?: Record<string, string[] | string>;
  /** A webhook receiver on 127.0.0.1 (`true`: answers 200 "ok"). */
  receiver?: true | Responder;
}

export interface World {
  t: TestApp;
  p: TestProject;
  /** Collections by slug. */
  c: Record<string, WorldCollection>;
  tokens: Record<string, Record<string, string>>;
  /** Present when `receiver` was given. */
  receiver: Receiver;
  /** A request as the project's `*` token (or `headers`). */
  api: (method: string, url: string, body?: unknown, headers?: Record<string, string>) => ReturnType<TestApp['request']>;
  /** Makes one more collection, in `p` or another project of the same app. */
  collection(spec: CollectionSpec, project?: TestProject): Promise<WorldCollection>;
  close(): Promise<void>;
}

const isApp = (a: WorldOptions['app']): a is TestApp => !!a && 'request' in a;
const isProject = (p: WorldOptions['project']): p is TestProject => !!p && 'tokenWith' in p;
const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).replace(/-/g, ' ');

export async function world(opts: WorldOptions = {}): Promise<World> {
  const owned = !isApp(opts.app);
  const t = isApp(opts.app) ? opts.app : await startTestApp(opts.app);
  const p = isProject(opts.project) ? opts.project : await t.project(opts.project);
  const via = opts.via ?? 'db';
  const c: World['c'] = {};
  // Relations resolve by slug within the collection's own project.
  const byProject = new Map<number, Record<string, WorldCollection>>([[p.id, c]]);
  const ids = (project: TestProject) => byProject.get(project.id) ?? byProject.set(project.id, {}).get(project.id)!;

  const resolve = (f: WorldField, known: Record<string, WorldCollection>, label: (w: WorldField) => string | undefined): FieldSpec => {
    const rel = f.options?.relation;
    const target = rel && typeof rel.collection === 'string' ? known[rel.collection]?.id : undefined;
    return {
      name: f.name,
      type: f.type,
      ...(label(f) !== undefined ? { label: label(f) } : {}),
      // An unresolved slug (a self-reference, made via api) is left for the API to resolve.
      ...(f.options ? { options: { ...f.options, ...(rel ? { relation: { ...rel, collection: (target ?? rel.collection) as number } } : {}) } as FieldOptions } : {}),
      ...(f.validations ? { validations: f.validations } : {}),
      ...(f.children ? { children: f.children.map((ch) => resolve(ch, known, label)) } : {}),
    };
  };

  const make = async (spec: CollectionSpec, project: TestProject = p): Promise<WorldCollection> => {
    const known = ids(project);
    let made: WorldCollection;
    if (via === 'api') {
      const fields = spec.fields.map((f) => resolve(f, known, (w) => w.label ?? capitalised(w.name)));
      const body = { name: spec.name ?? capitalised(spec.slug), slug: spec.slug, ...(spec.isSingleton ? { is_singleton: true } : {}), fields };
      const res = await t.request({ method: 'POST', url: '/api/collections', headers: project.headers, body });
      if (res.status !== 201) throw new Error(`collection ${spec.slug}: ${res.status} ${res.text}`);
      made = { id: res.body.id, uuid: res.body.uuid, slug: res.body.slug, name: res.body.name, fields: res.body.fields };
    } else {
      const fields = spec.fields.map((f) => resolve(f, known, (w) => w.label));
      const row = await createCollection(t.database.prisma, project.id, { slug: spec.slug, name: spec.name, isSingleton: spec.isSingleton, fields });
      const stored = await t.database.prisma.field.findMany({ where: { collectionId: row.id }, orderBy: { order: 'asc' }, select: { uuid: true, name: true } });
      made = { id: row.id, uuid: row.uuid, slug: row.slug, name: row.name, fields: stored };
    }
    known[spec.slug] = made;
    return made;
  };

  for (const spec of opts.collections ?? []) await make(spec);
  const tokens: World['tokens'] = {};
  for (const [name, abilities] of Object.entries(opts.tokens ?? {})) tokens[name] = await p.tokenWith(abilities);
  const receiver = opts.receiver ? await startReceiver(opts.receiver === true ? undefined : opts.receiver) : undefined;

  return {
    t,
    p,
    c,
    tokens,
    get receiver(): Receiver {
      if (!receiver) throw new Error('world: no receiver (pass `receiver: true`)');
      return receiver;
    },
    api: (method, url, body, headers = p.headers) => t.request({ method, url, headers, body }),
    collection: make,
    async close() {
      await receiver?.close();
      if (owned) await t.close();
    },
  };
}
