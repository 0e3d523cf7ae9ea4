import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { validationFailed } from '../errors.ts';
import type { CollectionResource, FieldResource } from '../collections/serialize.ts';
import type { VersionDetail } from '../entries/versions/serialize.ts';
import { portableOptions } from './snapshot.ts';
import { SCHEMA_FORMAT, SCHEMA_VERSION, type CollectionDoc, type FieldDoc, type SchemaDocument, type WebhookDoc, type WebhookShown, webhookDoc } from './document.ts';
import { EXPORT_FORMAT, EXPORT_VERSION, type AssetRecord, type EntryRecord, type ExportRecord, type VersionRecord } from './records.ts';

/**
 * `cms import --from <base-url>`: the records of an export, read from a running server through the
 * documented REST layout (the NomaCMS paths) instead of a file, for migrations from any server that
 * speaks it. What those paths do not show cannot travel: password and `hiddenInAPI` values, the API
 * token that made a version, trusted documents (only their hashes are served), webhook secrets; a
 * richtext field the source renders to HTML arrives as that HTML. Memory holds one page of entries
 * (and, per collection, the uuids of entries that have translations).
 */
export interface RemoteSource {
  baseUrl: string;
  token: string;
  projectUuid: string;
}

/** Entries asked for per page (the layout's largest `paginate`). */
export const REMOTE_PAGE_SIZE = 100;

type RemoteField = FieldResource;
type RemoteCollection = CollectionResource & { fields: FieldResource[] };
interface RemoteEntry {
  uuid: string;
  locale: string;
  state: 'draft' | 'published';
  published_at: string | null;
  published_version_number: number | null;
  is_draft_dirty: boolean;
  fields: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  deleted_at?: string | null;
}

class Remote {
  constructor(private readonly src: RemoteSource) {}

  private url(path: string): string {
    return `${this.src.baseUrl.replace(/\/+$/, '')}${path}`;
  }

  async get<T>(path: string, opts: { allow404?: boolean; allow403?: boolean } = {}): Promise<T | null> {
    let res: Response;
    try {
      res = await fetch(this.url(path), { headers: { 'project-id': this.src.projectUuid, authorization: `Bearer ${this.src.token}`, accept: 'application/json' } });
    } catch (err) {
      throw validationFailed({ from: [`Cannot reach ${this.src.baseUrl}: ${(err as Error).cause ?? (err as Error).message}`] });
    }
    if ((res.status === 404 && opts.allow404) || (res.status === 403 && opts.allow403)) {
      await res.body?.cancel();
      return null;
    }
    if (!res.ok) {
      const text = await res.text();
      throw validationFailed({ from: [`GET ${path} answered ${res.status}: ${text.slice(0, 300)}`] });
    }
    return (await res.json()) as T;
  }

  async file(uuid: string): Promise<Readable | null> {
    let res: Response;
    try {
      res = await fetch(this.url(`/files/${uuid}`));
    } catch (err) {
      throw validationFailed({ [`assets.${uuid}`]: [`Cannot fetch the file of asset ${uuid} from ${this.src.baseUrl}: ${(err as Error).cause ?? (err as Error).message}`] });
    }
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (!res.ok || !res.body) throw validationFailed({ [`assets.${uuid}`]: [`The file of asset ${uuid} cannot be fetched: GET /files/${uuid} answered ${res.status}.`] });
    return Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
  }

  /** Every item of a Laravel paginator, a page at a time. */
  async *pages<T>(path: string): AsyncGenerator<T> {
    const sep = path.includes('?') ? '&' : '?';
    for (let page = 1; ; page++) {
      const body = await this.get<{ data: T[]; last_page: number }>(`${path}${sep}paginate=${REMOTE_PAGE_SIZE}&page=${page}`);
      yield* body!.data;
      if (page >= body!.last_page || body!.data.length === 0) return;
    }
  }
}

function fieldTree(c: RemoteCollection, slugOf: Map<number, string>): FieldDoc[] {
  const doc = (f: RemoteField): FieldDoc => {
    const options = portableOptions(f.options, (id) => slugOf.get(id));
    const out: FieldDoc = { uuid: f.uuid, type: f.type, label: f.label, name: f.name, description: f.description, placeholder: f.placeholder, options, validations: f.validations, order: f.order };
    if (f.type === 'group') out.children = c.fields.filter((x) => x.parent_field_id === f.id).map(doc);
    return out;
  };
  return c.fields.filter((f) => f.parent_field_id === null).map(doc);
}

/** A value as a read shows it (relations and media hydrated) back in the stored form: uuids. */
function storedValue(f: FieldDoc, value: unknown): unknown {
  const idOf = (v: unknown) => (v && typeof v === 'object' && 'uuid' in v ? (v as { uuid: string }).uuid : v);
  if (f.type === 'relation' || f.type === 'media') return Array.isArray(value) ? value.map(idOf).filter((v) => v != null) : idOf(value);
  if (f.type === 'group' && value && typeof value === 'object') {
    const one = (o: Record<string, unknown>) => storedData(f.children ?? [], o);
    return Array.isArray(value) ? value.map((o) => one(o as Record<string, unknown>)) : one(value as Record<string, unknown>);
  }
  return value;
}

/** No value (`null`, `""`, `[]`) is no key, as drafts are stored. */
function storedData(fields: FieldDoc[], shown: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = storedValue(f, shown[f.name]);
    if (v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    out[f.name] = v;
  }
  return out;
}

/** An asset's bytes from the server's public file URL, or null when it has none (404). */
export function remoteFile(src: RemoteSource, uuid: string): Promise<Readable | null> {
  return new Remote(src).file(uuid);
}

/** The records `cms export` would write, read from a server over REST. */
export async function* remoteRecords(src: RemoteSource): AsyncGenerator<ExportRecord> {
  const remote = new Remote(src);
  const project = await remote.get<{ uuid: string; name: string; locales: string[]; default_locale: string; collections: RemoteCollection[] }>('/api?with=collections,fields');
  const p = project!;
  yield { type: 'project', format: EXPORT_FORMAT, version: EXPORT_VERSION, project: { uuid: p.uuid, name: p.name }, counts: { entries: 0, versions: 0, assets: 0 } };

  const slugOf = new Map(p.collections.map((c) => [c.id, c.slug]));
  const collections: CollectionDoc[] = p.collections.map((c) => ({ uuid: c.uuid, name: c.name, slug: c.slug, is_singleton: c.is_singleton, order: c.order, fields: fieldTree(c, slugOf) }));
  const hooks = await remote.get<WebhookShown[]>('/api/webhooks', { allow403: true });
  const schema: SchemaDocument = {
    format: SCHEMA_FORMAT,
    version: SCHEMA_VERSION,
    locales: { available: p.locales, default: p.default_locale },
    collections,
    ...(hooks
      ? {
          webhooks: hooks.map(webhookDoc),
        }
      : {}),
  };
  yield { type: 'schema', schema };

  const counts = { entries: 0, versions: 0, assets: 0 };
  for await (const a of remote.pages<{ uuid: string; filename: string; original_filename: string; mime_type: string; bytes: number; metadata: Record<string, unknown> | null; created_at: string; updated_at: string }>('/api/files')) {
    const record: AssetRecord = {
      type: 'asset',
      uuid: a.uuid,
      filename: a.filename,
      original_filename: a.original_filename,
      mime_type: a.mime_type,
      size: a.bytes,
      metadata: a.metadata,
      created_at: a.created_at,
      updated_at: a.updated_at,
      deleted_at: null,
    };
    yield record;
    counts.assets++;
  }

  for (const c of collections) {
    const base = `/api/${encodeURIComponent(c.slug)}`;
    const lists = (locale: string) => [`${base}?state=draft&timestamps=1&locale=${locale}`, `${base}/trash?timestamps=1&locale=${locale}`];
    // Pass 1: who is a translation of whom (the layout names siblings one locale at a time). The first
    // member met leads the group, and pass 2 meets the entries in the same order.
    const leaderOf = new Map<string, string>();
    if (p.locales.length > 1) {
      for (const locale of p.locales) {
        for (const path of lists(locale)) {
          for await (const e of remote.pages<RemoteEntry>(path)) {
            for (const other of p.locales.filter((l) => l !== e.locale)) {
              const sibling = await remote.get<RemoteEntry>(`${base}/${e.uuid}?state=draft&translation_locale=${other}`, { allow404: true });
              if (!sibling) continue;
              const leader = leaderOf.get(e.uuid) ?? leaderOf.get(sibling.uuid) ?? e.uuid;
              leaderOf.set(e.uuid, leader);
              leaderOf.set(sibling.uuid, leader);
            }
          }
        }
      }
    }
    for (const locale of p.locales) {
      for (const path of lists(locale)) {
        for await (const e of remote.pages<RemoteEntry>(path)) {
          const versions = await entryVersions(remote, base, e.uuid, leaderOf);
          const published = versions.find((v) => v.version_number === e.published_version_number);
          const record: EntryRecord = {
            type: 'entry',
            uuid: e.uuid,
            collection: c.slug,
            locale: e.locale,
            translation_of: leaderOf.get(e.uuid) ?? null,
            state: e.state,
            data: storedData(c.fields, e.fields),
            published_data: published ? ((published.snapshot.fields as Record<string, unknown>) ?? {}) : null,
            published_version_number: e.published_version_number,
            last_version_number: versions.reduce((m, v) => Math.max(m, v.version_number), 0),
            is_draft_dirty: e.is_draft_dirty,
            published_at: e.published_at,
            published_updated_at: published ? published.created_at : null,
            created_at: e.created_at,
            updated_at: e.updated_at,
            deleted_at: e.deleted_at ?? null,
            versions,
          };
          yield record;
          counts.entries++;
          counts.versions += versions.length;
        }
      }
    }
  }
  yield { type: 'end', counts };
}

async function entryVersions(remote: Remote, base: string, uuid: string, leaderOf: Map<string, string>): Promise<VersionRecord[]> {
  const list = await remote.get<{ data: Array<{ version_number: number; translation_group_id: number | null }> }>(`${base}/${uuid}/versions`, { allow404: true });
  const out: VersionRecord[] = [];
  for (const item of [...(list?.data ?? [])].sort((a, b) => a.version_number - b.version_number)) {
    const v = await remote.get<Omit<VersionDetail, 'snapshot'> & { snapshot: Record<string, unknown> }>(`${base}/${uuid}/versions/${item.version_number}`);
    out.push({
      uuid: v!.uuid,
      version_number: v!.version_number,
      label: v!.label,
      description: v!.description,
      locale: v!.locale,
      translation_of: v!.translation_group_id === null ? null : (leaderOf.get(uuid) ?? null),
      snapshot: v!.snapshot,
      published_at: v!.published_at,
      created_at: v!.created_at,
      updated_at: v!.updated_at,
    });
  }
  return out;
}
