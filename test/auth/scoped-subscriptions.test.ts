import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { world, posts, collection, field, type World } from '../helpers/world.ts';
import { openSse, payloadOf, type SseStream } from '../live/sse-client.ts';

const SUB = `subscription { entryChanged(collection: "posts") { event uuid entry { fields } } }`;

/**
 * Live subscriptions of scoped tokens: subscribers with different scopes never share a rendering,
 * so a field-scoped subscriber never receives a field outside its scope, even when an unscoped one
 * watches the same changes with the same document; a collection outside the scope cannot be watched.
 */
describe('scoped tokens on live subscriptions', () => {
  let w: World;
  let base: string;
  const open: SseStream[] = [];
  const headersOf = (token: string) => ({ 'project-id': w.p.uuid, authorization: `Bearer ${token}` });

  beforeAll(async () => {
    w = await world({ app: { env: { LIVE_POLL_MS: '200' } }, project: { name: 'Live scopes' }, collections: [posts(field.text('internal_notes')), collection('secrets', [field.text('code')])] });
    base = await w.t.app.listen({ port: 0, host: '127.0.0.1' });
  }, 60_000);
  afterAll(async () => {
    for (const s of open) s.close();
    await w.close();
  });

  it('renders each scope on its own', async () => {
    const issued = await w.api('POST', '/api/project/tokens', { name: 'live', abilities: ['read'], collections: ['posts'], fields: { posts: ['title'] } });
    const scoped = headersOf(issued.body.data.token);
    const full = await openSse(base, SUB, { headers: w.p.headers });
    const limited = await openSse(base, SUB, { headers: scoped });
    open.push(full, limited);
    const refused = await openSse(base, `subscription { entryChanged(collection: "secrets") { event } }`, { headers: { ...scoped, accept: 'application/json' } });
    open.push(refused);
    expect(JSON.stringify(await refused.json())).toMatch(/not found/i);

    await w.api('POST', '/api/posts', { data: { title: 'Watched', internal_notes: 'private' } });
    const a = payloadOf(await full.next(5000)).data!.entryChanged;
    const b = payloadOf(await limited.next(5000)).data!.entryChanged;
    expect(a.entry.fields).toEqual({ title: 'Watched', internal_notes: 'private' });
    expect(b.entry.fields).toEqual({ title: 'Watched' });
  });
});
