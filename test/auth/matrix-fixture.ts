import { expect } from 'vitest';
import { ABILITIES, type Ability } from '../../src/abilities.ts';
import type { TestApp } from '../helpers/app.ts';
import { world, posts, field } from '../helpers/world.ts';

/**
 * A project holding one of everything a route can address (collection, field, published entry with a
 * version, webhook with a log row, asset, a second locale), so every path parameter of the route table
 * is a real id: a lookup can then never answer 404 where the ability check should have answered 403.
 */
export interface MatrixWorld {
  projectUuid: string;
  /** Headers per grant: the five abilities and `*`. */
  tokens: Record<Ability | '*', Record<string, string>>;
  params: Record<string, string>;
}

export type Grant = Ability | '*';

export async function createWorld(t: TestApp): Promise<MatrixWorld> {
  const w = await world({
    app: t,
    project: { name: 'Matrix', locales: ['en', 'de'], plan: 'pro' },
    via: 'api',
    tokens: Object.fromEntries(ABILITIES.map((a) => [a, [a]])),
  });
  const p = w.p;
  const tokens = { '*': p.headers, ...w.tokens } as MatrixWorld['tokens'];
  const api = async (method: string, url: string, body?: unknown) => {
    const res = await t.request({ method, url, headers: p.headers, body });
    expect(res.status, `${method} ${url}: ${res.text}`).toBeLessThan(300);
    return res.body;
  };
  const collection = await w.collection(posts(field.number('views')));
  const entry = await api('POST', '/api/posts', { data: { title: 'Hello', views: 1 }, state: 'published' });
  const other = await api('POST', '/api/posts', { data: { title: 'Hallo' }, locale: 'de' });
  const webhook = await api('POST', '/api/webhooks', { name: 'Hook', url: 'http://127.0.0.1:9/hook', events: ['content.updated'], sources: ['api'] });
  const release = (await api('POST', '/api/releases', { title: 'Matrix' })).data;
  const item = (await api('POST', `/api/releases/${release.id}/items`, { items: [{ collection: 'posts', uuid: other.uuid, action: 'publish' }] })).data.items[0];
  const db = t.database.prisma;
  const log = await db.webhookLog.create({
    data: {
      webhookId: (await db.webhook.findUniqueOrThrow({ where: { uuid: webhook.uuid } })).id,
      deliveryId: '00000000-0000-4000-8000-000000000001',
      attempt: 1,
      action: 'content.updated',
      url: 'http://127.0.0.1:9/hook',
      status: '500',
      request: { event: 'content.updated' },
      response: { status: 500, body: '', body_truncated: false },
    },
  });
  const asset = await db.asset.create({
    data: { projectId: p.id, filename: 'a.txt', originalFilename: 'a.txt', mimeType: 'text/plain', size: 1, storageKey: `matrix/${p.uuid}/a.txt` },
  });
  return {
    projectUuid: p.uuid,
    tokens,
    params: {
      collection: 'posts',
      slug: 'posts',
      uuid: entry.uuid,
      otherEntryUuid: other.uuid,
      version: '1',
      fieldUuid: collection.fields[0].uuid,
      locale: 'de',
      webhook: webhook.uuid,
      log: String(log.id),
      id: asset.uuid,
      filename: asset.originalFilename,
      release: release.id,
      item: item.id,
    },
  };
}

/** The status the matrix expects for a grant on an operation needing `ability` (null: allowed = not 400/401/403). */
export function expectedFor(grant: Grant, ability: Ability): 403 | null {
  return grant === '*' || grant === ability ? null : 403;
}

export const GRANTS: Grant[] = [...ABILITIES, '*'];

/** A bearer token that belongs to no project. */
export const BAD_TOKEN = 'Bearer cms_this-token-was-never-issued';
