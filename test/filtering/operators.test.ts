import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_CASES } from './cases.ts';
import { postsWorld } from './fixture.ts';
import type { FilterWorld } from './world.ts';

/** Every operator × field type × draft/published, on PostgreSQL and on embedded PGlite. */
describe.each([
  ['PostgreSQL', false],
  ['PGlite', true],
] as const)('where on %s', (_backend, embedded) => {
  let w: FilterWorld;
  beforeAll(async () => {
    w = await postsWorld({ embedded });
  });
  afterAll(() => w?.close());

  describe.each(ALL_CASES)('%s', (_group, cases) => {
    it.each(cases)('%s', async (_label, where, draft, published) => {
      const filter = typeof where === 'function' ? where(w) : where;
      expect(await w.match('posts', filter, 'data'), 'draft (data)').toEqual(draft);
      expect(await w.match('posts', filter, 'published_data'), 'published (published_data)').toEqual(published);
    });
  });
});
