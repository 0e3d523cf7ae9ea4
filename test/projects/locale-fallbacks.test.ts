import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { world, type World } from '../helpers/world.ts';

/**
 * PATCH /api/project/locales/{locale} holds its body to the operation's one schema: a fallback that
 * is not a locale code is refused as adding that locale is, naming the field, and the OpenAPI
 * document shows the same rules.
 */
describe('locale fallback body', () => {
  let w: World;
  beforeAll(async () => {
    w = await world({ project: { locales: ['en', 'de'] } });
  }, 60_000);
  afterAll(() => w.close());

  it('refuses a fallback the locale create refuses, naming the field', async () => {
    for (const bad of ['not a code!', 'e', 'en_US', '']) {
      const created = await w.api('POST', '/api/project/locales', { locale: bad });
      expect(created.status, bad).toBe(422);
      expect(created.body.errors.locale, bad).toBeDefined();
      const patched = await w.api('PATCH', '/api/project/locales/de', { fallback: bad });
      expect(patched.status, bad).toBe(422);
      expect(patched.body.errors.fallback, bad).toHaveLength(1);
    }
    // A missing fallback and unknown keys are refused as the operation refuses them.
    const missing = await w.api('PATCH', '/api/project/locales/de', {});
    expect(missing.status).toBe(422);
    expect(missing.body.errors.fallback).toEqual(['The fallback must be a locale code or null.']);
    const extra = await w.api('PATCH', '/api/project/locales/de', { fallback: 'en', chain: ['en'] });
    expect(extra.status).toBe(422);
    expect(JSON.stringify(extra.body.errors)).toContain('chain');
    expect((await w.api('GET', '/api')).body.locale_fallbacks).toEqual({});
    // What both accept still works.
    expect((await w.api('PATCH', '/api/project/locales/de', { fallback: ' EN ' })).body.locale_fallbacks).toEqual({ de: 'en' });
  });

  it('documents the body with the same rules', async () => {
    const doc = (await w.api('GET', '/api/openapi.json')).body;
    const body = doc.paths['/api/project/locales/{locale}'].patch.requestBody.content['application/json'].schema;
    expect(body).toMatchObject({ type: 'object', required: ['fallback'], additionalProperties: false });
    expect(body.properties.fallback.anyOf).toContainEqual({ type: 'null' });
    expect(body.properties.fallback.anyOf).toContainEqual(expect.objectContaining({ type: 'string', pattern: expect.any(String) }));
  });
});
