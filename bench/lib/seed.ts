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

/** Published authors and posts; returns the post UUIDs. */
export async function seedPosts(api: Api, posts: number, authors: number): Promise<{ posts: string[]; authors: string[] }> {
  const authorUuids = await inParallel(authors, 8, async (i) =>
    (await must<{ uuid: string }>(api, 'POST', '/api/authors', { data: { name: `Author ${i}` }, state: 'published' })).uuid,
  );
  const postUuids = await inParallel(posts, 8, async (i) =>
    (await must<{ uuid: string }>(api, 'POST', '/api/posts', { data: postBody(i, authorUuids[i % authorUuids.length]), state: 'published' })).uuid,
  );
  return { posts: postUuids, authors: authorUuids };
}
