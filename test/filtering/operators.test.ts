import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_CASES } from './cases.ts';
import { postsWorld } from './fixture.ts';
import type { FilterWorld } from './world.ts';

let w: FilterWorld;
beforeAll(async () => {
  w = await postsWorld();
});
afterAll(() => w?.close());

describe.each(ALL_CASES)('where on %s (PostgreSQL)', (_group, cases) => {
  it.each(cases)('%s', async (_label, where, draft, published) => {
    const filter = typeof where === 'function' ? where(w) : where;
    expect(await w.match('posts', filter, 'data'), 'draft (data)').toEqual(draft);
    expect(await w.match('posts', filter, 'published_data'), 'published (published_data)').toEqual(published);
  });
});
