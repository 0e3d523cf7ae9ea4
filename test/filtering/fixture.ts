import type { FieldSpec } from '../helpers/fixtures.ts';
import { filterWorld, type FilterWorld } from './world.ts';

/**
 * The shared content model of the filter tests: one field of every type (plus repeatable and
 * multiple variants), related authors, media, and four posts whose draft and published values
 * differ, so every case is checked against both state columns.
 */
export const POST_FIELDS = (ids: Record<string, number>): FieldSpec[] => [
  { name: 'title', type: 'text' },
  { name: 'tags', type: 'text', options: { repeatable: true } },
  { name: 'body', type: 'richtext' },
  { name: 'views', type: 'number' },
  { name: 'scores', type: 'number', options: { repeatable: true } },
  { name: 'active', type: 'boolean' },
  { name: 'day', type: 'date' },
  { name: 'at', type: 'date', options: { includeTime: true } },
  { name: 'span', type: 'date', options: { mode: 'range' } },
  { name: 'spanAt', type: 'date', options: { mode: 'range', includeTime: true } },
  { name: 'color', type: 'enumeration', options: { enumeration: { list: ['red', 'green', 'blue'] } } },
  { name: 'cats', type: 'enumeration', options: { enumeration: { list: ['a', 'b', 'c'] }, multiple: true } },
  { name: 'meta', type: 'json' },
  { name: 'seo', type: 'group', options: { repeatable: false }, children: [{ name: 'title', type: 'text' }] },
  { name: 'author', type: 'relation', options: { relation: { collection: ids.authors, type: 1 } } },
  { name: 'authors', type: 'relation', options: { relation: { collection: ids.authors, type: 2 } } },
  { name: 'cover', type: 'media', options: { media: { type: 1 } } },
  { name: 'gallery', type: 'media', options: { media: { type: 2 } } },
  { name: 'secret', type: 'password' },
  { name: 'slug', type: 'slug' },
  { name: 'email', type: 'email' },
  { name: 'when', type: 'time' },
];

export async function postsWorld(opts: { embedded?: boolean } = {}): Promise<FilterWorld> {
  return filterWorld(
    [
      { slug: 'people', fields: [{ name: 'name', type: 'text' }] },
      {
        slug: 'authors',
        fields: (ids) => [
          { name: 'name', type: 'text' },
          { name: 'age', type: 'number' },
          { name: 'mentor', type: 'relation', options: { relation: { collection: ids.people, type: 1 } } },
        ],
      },
      { slug: 'posts', fields: POST_FIELDS },
    ],
    ({ entries: e, assets: a }) => [
      {
        slug: 'authors',
        entries: [
          { name: 'A1', draft: { name: 'Ann Smith', age: 30 }, published: { name: 'Ann Smith', age: 30 } },
          { name: 'A2', draft: { name: 'Bob', age: 40 }, published: { name: 'Bobby', age: 40 } },
          { name: 'A3', draft: { name: 'Annabel', age: 50 } },
        ],
      },
      {
        slug: 'posts',
        entries: () => [
          {
            name: 'p1',
            createdAt: '2025-06-01T08:00:00Z',
            draft: p1Draft(e, a),
            published: { ...p1Draft(e, a), title: 'Hello Published', views: 11 },
          },
          {
            name: 'p2',
            draft: {
              title: 'Second_post',
              tags: ['blue'],
              body: 'plain',
              views: 20.5,
              scores: [3],
              active: false,
              day: '2026-02-01',
              at: '2026-01-31T22:00:00.000Z',
              span: { start: '2026-02-01', end: '2026-02-05' },
              color: 'blue',
              cats: ['c'],
              meta: { k: 2 },
              author: e.A2.uuid,
              authors: [e.A2.uuid],
              cover: a.img2.uuid,
              gallery: [],
              slug: 'second-post',
              email: 'b@example.com',
              when: '18:00',
            },
            published: null,
          },
          {
            name: 'p3',
            locale: 'de',
            draft: { title: 'third', views: -3, active: true, day: '2025-12-31', at: '2025-12-31T23:59:59.999Z', color: 'green', meta: 'str', author: null, secret: 'hash' },
            published: { title: 'third', views: -3, active: true, day: '2025-12-31', color: 'green', meta: 'str', author: e.A2.uuid },
          },
          { name: 'p4', draft: {}, published: {} },
          { name: 'gone', deleted: true, draft: { title: 'Hello World' }, published: { title: 'Hello World' } },
        ],
      },
    ],
    { embedded: opts.embedded, assets: ['img1', 'img2'] },
  );
}

function p1Draft(e: FilterWorld['entries'], a: FilterWorld['assets']): Record<string, unknown> {
  return {
    title: 'Hello World',
    tags: ['red', 'green'],
    body: '**bold** 100%',
    views: 10,
    scores: [1, 2],
    active: true,
    day: '2026-01-10',
    at: '2026-01-10T10:00:00.000Z',
    span: { start: '2026-01-01', end: '2026-01-31' },
    spanAt: { start: '2026-01-01T00:00:00.000Z', end: '2026-01-01T12:00:00.000Z' },
    color: 'red',
    cats: ['a', 'b'],
    meta: { k: 1, list: [1, 2] },
    seo: { title: 'S1' },
    author: e.A1.uuid,
    authors: [e.A1.uuid, e.A2.uuid],
    cover: a.img1.uuid,
    gallery: [a.img1.uuid, a.img2.uuid],
    slug: 'hello-world',
    email: 'a@example.com',
    when: '09:30',
  };
}
