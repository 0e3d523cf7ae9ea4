import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filterWorld, type FilterWorld } from './world.ts';

let w: FilterWorld;
beforeAll(async () => {
  w = await filterWorld([{ slug: 'posts', fields: [{ name: 'title', type: 'text' }, { name: 'views', type: 'number' }] }], () => [
    {
      slug: 'posts',
      entries: [
        { name: 'a', draft: { title: 'Alpha', views: 5 } },
        { name: 'b', draft: { title: 'Beta', views: 50 } },
      ],
    },
  ]);
});
afterAll(() => w?.close());

describe('smoke', () => {
  it('eq, in and ranges', async () => {
    expect(await w.match('posts', { title: 'Alpha' })).toEqual(['a']);
    expect(await w.match('posts', { title: { in: 'Alpha,Beta' } })).toEqual(['a', 'b']);
    expect(await w.match('posts', { views: { gt: '10' } })).toEqual(['b']);
    expect(await w.match('posts', { title: { like: 'ET' } })).toEqual(['b']);
  });
});
