/** Seeds the HTTP scenarios' content through the public REST API (so versions and caches are real). */

export interface Api {
  base: string;
  headers: Record<string, string>;
}

export async function call<T = unknown>(api: Api, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${api.base}${path}`, {
    method,
    headers: { ...api.headers, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* keep text */
  }
  return { status: res.status, body: parsed as T };
}

export async function must<T = unknown>(api: Api, method: string, path: string, body?: unknown): Promise<T> {
  const r = await call<T>(api, method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path} → ${r.status}: ${JSON.stringify(r.body).slice(0, 500)}`);
  return r.body;
}

/** authors(name) and posts(title, body, views, author → authors), the model every HTTP scenario reads. */
export async function createContentModel(api: Api): Promise<void> {
  await must(api, 'POST', '/api/collections', { name: 'Authors', slug: 'authors', fields: [{ type: 'text', label: 'Name', name: 'name' }] });
  await must(api, 'POST', '/api/collections', {
    name: 'Posts',
    slug: 'posts',
    fields: [
      { type: 'text', label: 'Title', name: 'title' },
      { type: 'longtext', label: 'Body', name: 'body' },
      { type: 'number', label: 'Views', name: 'views' },
      { type: 'relation', label: 'Author', name: 'author', options: { relation: { collection: 'authors', type: 1 } } },
    ],
  });
}

async function inParallel<T>(n: number, width: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

export const postBody = (i: number, author: string | undefined) => ({
  title: `Post ${i}`,
  body: `Body of post ${i}. `.repeat(20),
  views: i,
  ...(author ? { author } : {}),
});

/** Creates `n` published entries through the bulk endpoint, 50 per request, 4 requests at a time. */
async function bulkPublished(api: Api, slug: string, n: number, data: (i: number) => Record<string, unknown>): Promise<string[]> {
  const batches = Math.ceil(n / 50);
  const out = await inParallel(batches, 4, async (b) => {
    const items = Array.from({ length: Math.min(50, n - b * 50) }, (_, k) => ({ data: data(b * 50 + k), state: 'published' }));
    return (await must<{ data: Array<{ uuid: string }> }>(api, 'POST', `/api/bulk/${slug}/entries`, { items })).data.map((e) => e.uuid);
  });
  return out.flat();
}

/** Published authors and posts (through the bulk endpoint); returns their UUIDs. */
export async function seedPosts(api: Api, posts: number, authors: number): Promise<{ posts: string[]; authors: string[] }> {
  const authorUuids = await bulkPublished(api, 'authors', authors, (i) => ({ name: `Author ${i}` }));
  const postUuids = await bulkPublished(api, 'posts', posts, (i) => postBody(i, authorUuids[i % authorUuids.length]));
  return { posts: postUuids, authors: authorUuids };
}
