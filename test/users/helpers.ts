import type { TestApp, TestProject } from '../helpers/app.ts';
import { world } from '../helpers/world.ts';

export interface EndUserWorld {
  t: TestApp;
  p: TestProject;
  /** A call to /api/auth/<path> of project `p` (or `project`), as an end user. */
  auth(method: string, path: string, opts?: { body?: unknown; token?: string; project?: string }): ReturnType<TestApp['request']>;
  signup(email: string, password?: string): Promise<{ access_token: string; refresh_token: string; user: { uuid: string; id: number } }>;
}

export async function endUserWorld(env: Record<string, string> = {}, opts: { embedded?: boolean } = {}): Promise<EndUserWorld> {
  const { t, p } = await world({ app: { env, embedded: opts.embedded } });
  const auth: EndUserWorld['auth'] = (method, path, opts = {}) =>
    t.request({
      method,
      url: `/api/auth/${path}`,
      headers: { 'project-id': opts.project ?? p.uuid, ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}) },
      body: opts.body,
    });
  return {
    t,
    p,
    auth,
    async signup(email, password = 'correct horse battery') {
      const res = await auth('POST', 'signup', { body: { email, password } });
      if (res.status !== 201) throw new Error(`signup ${res.status}: ${res.text}`);
      return res.body;
    },
  };
}
