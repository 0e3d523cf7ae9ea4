import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import type { FieldSpec } from '../helpers/fixtures.ts';
import { contentProject } from './helpers.ts';

const FIELDS: FieldSpec[] = [
  { name: 'title', type: 'text', validations: { charcount: { status: true, type: 'Between', min: 2, max: 10 } } },
  { name: 'tags', type: 'text', options: { repeatable: true } },
  { name: 'summary', type: 'longtext', validations: { charcount: { status: true, type: 'Max', max: 5 } } },
  { name: 'body', type: 'richtext' },
  { name: 'raw-body', type: 'richtext', options: { editor: { type: 1, outputFormat: 'markdown' } } },
  { name: 'slug', type: 'slug', options: { slug: { field: 'title' } } },
  { name: 'contact', type: 'email' },
  { name: 'secret', type: 'password' },
  { name: 'price', type: 'number', validations: { charcount: { status: true, type: 'Min', min: 0 } } },
  { name: 'size', type: 'enumeration', options: { enumeration: { list: ['s', 'm', 'l'] } } },
  { name: 'colors', type: 'enumeration', options: { enumeration: { list: ['red', 'blue'] }, multiple: true } },
  { name: 'active', type: 'boolean' },
  { name: 'tint', type: 'color' },
  { name: 'day', type: 'date' },
  { name: 'at', type: 'date', options: { includeTime: true } },
  { name: 'span', type: 'date', options: { mode: 'range' } },
  { name: 'opens', type: 'time' },
  { name: 'meta', type: 'json' },
  { name: 'internal', type: 'text', options: { hiddenInAPI: true } },
  { name: 'seo', type: 'group', options: { repeatable: false }, children: [
    { name: 'title', type: 'text', validations: { required: { status: true } } },
    { name: 'robots', type: 'boolean' },
  ] },
  { name: 'blocks', type: 'group', options: { repeatable: true }, children: [
    { name: 'heading', type: 'text', validations: { required: { status: true } } },
    { name: 'weight', type: 'number' },
  ] },
];

for (const embedded of [false, true]) {
  describe(`field types (${embedded ? 'PGlite' : 'PostgreSQL'})`, () => {
    let t: TestApp;
    let c: Awaited<ReturnType<typeof contentProject>>;
    beforeAll(async () => {
      t = await startTestApp({ embedded });
      c = await contentProject(t);
      await c.collection('things', FIELDS);
    });
    afterAll(() => t.close());

    it('stores every type in its documented shape and reads it back', async () => {
      const data = {
        title: 'Hello You',
        tags: ['a', 'b'],
        summary: 'short',
        body: '**bold** <script>alert(1)</script>',
        'raw-body': '# md',
        contact: 'me@example.com',
        secret: 'hunter2',
        price: '12.5',
        size: 'm',
        colors: ['red', 'blue', 'red'],
        active: 'true',
        tint: '#a0b1c2',
        day: '2024-02-29',
        at: '2024-05-01T12:30:00+02:00',
        span: { start: '2024-01-01', end: '2024-01-31' },
        opens: '09:30',
        meta: { nested: [1, 2, { x: null }] },
        internal: 'hidden',
        seo: { title: 'SEO', robots: false, extra: 'ignored' },
        blocks: [{ heading: 'One', weight: 1 }, { heading: 'Two' }],
      };
      const res = await c.create('things', { data });
      expect(res.status).toBe(201);
      const f = res.body.fields;
      expect(f).toMatchObject({
        title: 'Hello You',
        tags: ['a', 'b'],
        summary: 'short',
        'raw-body': '# md',
        slug: 'hello-you',
        contact: 'me@example.com',
        price: 12.5,
        size: 'm',
        colors: ['red', 'blue'],
        active: true,
        tint: '#a0b1c2',
        day: '2024-02-29',
        at: '2024-05-01T10:30:00.000Z',
        span: { start: '2024-01-01', end: '2024-01-31' },
        opens: '09:30',
        meta: { nested: [1, 2, { x: null }] },
        seo: { title: 'SEO', robots: false },
        blocks: [{ heading: 'One', weight: 1 }, { heading: 'Two', weight: null }],
      });
      expect(f.body).toBe('<p><strong>bold</strong> </p>');
      expect(f).not.toHaveProperty('secret');
      expect(f).not.toHaveProperty('internal');
      expect(JSON.stringify(res.body)).not.toContain('hunter2');

      const row = await t.database.prisma.entry.findUniqueOrThrow({ where: { uuid: res.body.uuid } });
      const stored = row.data as Record<string, unknown>;
      expect(stored.secret).toMatch(/^scrypt\$/);
      expect(stored.body).toBe(data.body);
      expect(stored.internal).toBe('hidden');
      expect(stored.seo).toEqual({ title: 'SEO', robots: false });
    });

    it('rejects invalid values of every type with a 422 naming the field', async () => {
      const res = await c.create('things', {
        data: {
          title: 'x',
          tags: ['ok', 5, {}],
          summary: 'too long',
          slug: 'Not A Slug',
          contact: 'nope',
          secret: 42,
          price: -1,
          size: 'xl',
          colors: ['green'],
          active: 'maybe',
          tint: 'blue',
          day: '2023-02-29',
          at: 'yesterday',
          span: { start: '2024-02-01', end: '2024-01-01' },
          opens: '25:00',
          seo: { robots: true },
          blocks: [{ heading: 'ok' }, { weight: 'x' }, 'str'],
        },
      });
      expect(res.status).toBe(422);
      const keys = Object.keys(res.body.errors).sort();
      expect(keys).toEqual(
        [
          'data.title', 'data.tags.2', 'data.summary', 'data.slug', 'data.contact', 'data.secret', 'data.price', 'data.size',
          'data.colors', 'data.active', 'data.tint', 'data.day', 'data.at', 'data.span', 'data.opens', 'data.seo.title',
          'data.blocks.1.heading', 'data.blocks.1.weight', 'data.blocks.2',
        ].sort(),
      );
      expect(res.body.errors['data.title'][0]).toMatch(/between 2 and 10 characters/);
      expect(res.body.errors['data.price'][0]).toMatch(/at least 0/);
      expect(res.body.errors['data.seo.title'][0]).toMatch(/required/);
      expect(res.body.message).toMatch(/more errors/);
      // numbers in a text list are accepted as their string form
      expect(res.body.errors['data.tags.1']).toBeUndefined();
    });

    it('accepts the colour, time and date variants', async () => {
      for (const tint of ['#abc', '#AABBCCDD', 'rgb(1, 2, 3)', 'rgba(255,255,255,0.5)']) {
        const r = await c.create('things', { data: { tint } });
        expect(r.status, tint).toBe(201);
      }
      for (const tint of ['#abcd1', 'rgb(256,0,0)', 'rgba(1,2,3,2)']) {
        const r = await c.create('things', { data: { tint } });
        expect(r.status, tint).toBe(422);
      }
      const r = await c.create('things', { data: { opens: '23:59:59', at: '2024-05-01', day: '' } });
      expect(r.status).toBe(201);
      expect(r.body.fields).toMatchObject({ opens: '23:59:59', at: '2024-05-01T00:00:00.000Z', day: null });
    });

    it('rejects a single value where a list is expected only for non-list types, and wraps scalars for lists', async () => {
      const r = await c.create('things', { data: { tags: 'solo', colors: 'red' } });
      expect(r.status).toBe(201);
      expect(r.body.fields).toMatchObject({ tags: ['solo'], colors: ['red'] });
      const bad = await c.create('things', { data: { title: ['a', 'b'], size: ['s'] } });
      expect(bad.status).toBe(422);
      expect(Object.keys(bad.body.errors).sort()).toEqual(['data.size', 'data.title']);
    });

    it('a non-object data is a 422 on data', async () => {
      const r = await c.create('things', { data: [1, 2] });
      expect(r.status).toBe(422);
      expect(r.body.errors).toHaveProperty('data');
    });
  });
}
