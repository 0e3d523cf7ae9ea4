import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { postsWorld } from './fixture.ts';
import type { FilterWorld } from './world.ts';

let w: FilterWorld;
beforeAll(async () => {
  w = await postsWorld();
});
afterAll(() => w?.close());

const nest = (depth: number): Record<string, unknown> => (depth === 0 ? { title: 'x' } : { or: [nest(depth - 1)] });

/** [label, where, the error key that must be reported]. */
const CASES: Array<[string, unknown, string]> = [
  ['unknown field', { nope: 'x' }, 'where.nope'],
  ['unknown operator', { views: { foo: '1' } }, 'where.views.foo'],
  ['like on a number', { views: { like: '1' } }, 'where.views.like'],
  ['gt on a boolean', { active: { gt: '1' } }, 'where.active.gt'],
  ['lt on a relation', { author: { lt: '1' } }, 'where.author.lt'],
  ['between on json', { meta: { between: '1,2' } }, 'where.meta.between'],
  ['between with one bound', { views: { between: '1' } }, 'where.views.between'],
  ['between with three bounds', { views: { between: '1,2,3' } }, 'where.views.between'],
  ['not_between with an array of one', { views: { not_between: ['1'] } }, 'where.views.not_between'],
  ['non-numeric number', { views: { gt: 'abc' } }, 'where.views.gt'],
  ['number shorthand not numeric', { views: '1x' }, 'where.views'],
  ['non-numeric in a list', { views: { in: '1,two' } }, 'where.views.in'],
  ['empty in-list value', { views: { in: '' } }, 'where.views.in'],
  ['invalid calendar date', { day: { eq: '2026-02-30' } }, 'where.day.eq'],
  ['not a date', { at: { gt: 'yesterday' } }, 'where.at.gt'],
  ['invalid core timestamp', { created_at: { lt: '2026-13-01' } }, 'where.created_at.lt'],
  ['bad boolean', { active: 'yes' }, 'where.active'],
  ['bad uuid', { uuid: 'x' }, 'where.uuid'],
  ['bad state', { state: 'archived' }, 'where.state'],
  ['bad relation reference', { author: 'not-a-uuid' }, 'where.author'],
  ['password field', { secret: 'x' }, 'where.secret'],
  ['null with a bad value', { views: { null: 'maybe' } }, 'where.views.null'],
  ['single-value operator given a list', { title: { eq: ['a', 'b'] } }, 'where.title.eq'],
  ['single-value operator given an object', { title: { like: { a: 'b' } } }, 'where.title.like'],
  ['unknown field of the related collection', { author: { nope: 'x' } }, 'where.author.nope'],
  ['unknown operator under a related field', { author: { name: { nope: 'x' } } }, 'where.author.name.nope'],
  ['media has no related fields', { cover: { name: 'x' } }, 'where.cover.name'],
  ['relation nesting beyond one level', { author: { mentor: { name: 'x' } } }, 'where.author.mentor'],
  ['or must be a list', { or: 'x' }, 'where.or'],
  ['or items must be groups', { or: ['x'] }, 'where.or'],
  ['or with named keys', { or: { a: { title: 'x' } } }, 'where.or'],
  ['and must be a list', { and: { title: 'x' } }, 'where.and'],
  ['too deep', nest(5), 'where.or.0.or.0.or.0.or.0.or'],
  ['too many values', { title: { in: Array.from({ length: 101 }, (_, i) => `v${i}`) } }, 'where.title.in'],
  ['value too long', { title: 'x'.repeat(1001) }, 'where.title'],
  ['not an object', 'title=x', 'where'],
  ['unknown field inside an or group', { or: [{ title: 'a' }, { nope: 'b' }] }, 'where.or.1.nope'],
  ['operator with no value object', { title: {} }, 'where.title'],
];

describe('where: 422 naming the key', () => {
  it.each(CASES)('%s', async (_label, where, key) => {
    const err = await w.match('posts', where).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    const app = err as AppError;
    expect(app.status).toBe(422);
    expect(Object.keys(app.errors ?? {})).toContain(key);
  });

  it('caps the number of conditions', async () => {
    const many = { or: Array.from({ length: 51 }, (_, i) => ({ views: String(i) })) };
    const err = (await w.match('posts', many).catch((e: unknown) => e)) as AppError;
    expect(err.status).toBe(422);
    expect(err.errors?.where?.[0]).toMatch(/at most 50 conditions/);
    // Fifty is still fine.
    await expect(w.match('posts', { or: many.or.slice(0, 50) })).resolves.toEqual(expect.any(Array));
  });

  it('accepts exactly the depth limit', async () => {
    await expect(w.match('posts', nest(4))).resolves.toEqual([]);
  });

  it('reports every problem at once', async () => {
    const err = (await w.match('posts', { nope: 'x', views: { gt: 'a' } }).catch((e: unknown) => e)) as AppError;
    expect(Object.keys(err.errors ?? {}).sort()).toEqual(['where.nope', 'where.views.gt']);
  });
});
