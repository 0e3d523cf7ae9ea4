import type { TestApp } from '../helpers/app.ts';

/**
 * A WHATWG `fetch` over Fastify's inject(): client libraries (graphql-http's audit, Apollo Client,
 * graphql-request) talk to the real HTTP pipeline with no socket. `headers` are added to every
 * request unless the request sets them itself.
 */
export function injectFetch(t: TestApp, headers: Record<string, string> = {}): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const merged: Record<string, string> = { ...headers };
    request.headers.forEach((value, key) => void (merged[key] = value));
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : Buffer.from(await request.arrayBuffer());
    const res = await t.app.inject({ method: request.method as 'GET', url: url.pathname + url.search, headers: merged, payload: body });
    const responseHeaders = new Headers();
    for (const [key, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(key, String(v));
    }
    const nullBody = res.statusCode === 204 || res.statusCode === 304;
    return new Response(nullBody ? null : new Uint8Array(res.rawPayload), { status: res.statusCode, headers: responseHeaders });
  }) as typeof fetch;
}
