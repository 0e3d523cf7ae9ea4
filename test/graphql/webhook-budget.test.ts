import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

describe('GraphQL webhook operations draw from the webhooks budget, as REST does (PGlite)', () => {
  let t: TestApp;
  beforeAll(async () => {
    // 20 points a minute per token: the webhooks bucket holds half, 10.
    t = await startTestApp({ embedded: true, env: { RATE_LIMIT_PER_MINUTE: '20' } });
  });
  afterAll(() => t.close());

  it('spends one webhooks budget across both surfaces and leaves other operations alone', async () => {
    const p = await t.project();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await t.request({ method: 'GET', url: '/api/webhooks', headers: p.headers })).status);
    for (let i = 0; i < 5; i++) {
      const res = await t.graphql('{ webhooks { uuid } }', undefined, p.headers);
      statuses.push(res.body.errors ? res.status : 200);
    }
    expect(statuses).toEqual(Array(10).fill(200));
    // `webhooks` is a nullable root: data is present, so GraphQL over HTTP answers 200 and the 429
    // travels in the error's extensions (with its Retry-After header).
    const spent = await t.graphql('{ webhooks { uuid } }', undefined, p.headers);
    expect(spent.body.data).toEqual({ webhooks: null });
    expect(spent.body.errors?.[0].extensions).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    const mutation = await t.graphql('mutation { pingWebhook(uuid: "00000000-0000-4000-8000-000000000000") { deliveryId } }', undefined, p.headers);
    expect(mutation.body.errors?.[0].extensions.code).toBe('RATE_LIMITED');
    expect((await t.request({ method: 'GET', url: '/api/webhooks', headers: p.headers })).status).toBe(429);
    // The default budget is not what ran out.
    const other = await t.graphql('{ project { uuid } }', undefined, p.headers);
    expect(other.body).toEqual({ data: { project: { uuid: p.uuid } } });
  });
});
