import { describe, expect, it } from 'vitest';
import { toNormalisedWhere, toSortString, toWriteData, type InputPlan, type WherePlan } from '../../src/graphql/schema/typed/convert.ts';

const authorPlan: WherePlan = new Map([
  ['name', { kind: 'ops', key: 'name' }],
  ['createdAt', { kind: 'ops', key: 'created_at' }],
]);
const postPlan: WherePlan = new Map<string, Parameters<WherePlan['set']>[1]>([
  ['title', { kind: 'ops', key: 'title' }],
  ['coverImage', { kind: 'ops', key: 'cover-image' }],
  ['publishedAt', { kind: 'ops', key: 'published_at' }],
  ['author', { kind: 'relation', key: 'author', target: () => authorPlan }],
]);

/** A null-prototype object, as graphql-js hands input objects over. */
const gql = (o: Record<string, unknown>) => Object.assign(Object.create(null) as Record<string, unknown>, o);

describe('typed where → the normalised REST where object', () => {
  it('maps field names back to stored names and operators to their REST keys', () => {
    const where = gql({ title: gql({ like: 'news', notIn: ['a', 'b'] }), coverImage: gql({ notNull: true }) });
    expect(toNormalisedWhere(where, postPlan)).toEqual({ title: { like: 'news', not_in: ['a', 'b'] }, 'cover-image': { not_null: true } });
  });

  it('keeps or/and groups as lists of groups and turns dates into ISO strings', () => {
    const at = new Date('2026-01-02T03:04:05.000Z');
    const where = gql({ or: [gql({ title: gql({ eq: 'a' }) }), gql({ publishedAt: gql({ gt: at }) })], and: [gql({ title: gql({ notBetween: ['a', 'c'] }) })] });
    expect(toNormalisedWhere(where, postPlan)).toEqual({
      or: [{ title: { eq: 'a' } }, { published_at: { gt: '2026-01-02T03:04:05.000Z' } }],
      and: [{ title: { not_between: ['a', 'c'] } }],
    });
  });

  it('nests relation conditions: operators on the reference, `where` on the related entry', () => {
    const where = gql({ author: gql({ null: false, where: gql({ name: gql({ eq: 'Ann' }), createdAt: gql({ lt: '2026-01-01' }) }) }) });
    expect(toNormalisedWhere(where, postPlan)).toEqual({ author: { null: false, name: { eq: 'Ann' }, created_at: { lt: '2026-01-01' } } });
  });

  it('leaves out operators given as null, as if not sent', () => {
    expect(toNormalisedWhere(gql({ title: gql({ eq: null, like: 'x' }), coverImage: null }), postPlan)).toEqual({ title: { like: 'x' } });
  });
});

describe('typed data → the write shape', () => {
  const plan: InputPlan = new Map([
    ['title', { name: 'title' }],
    ['coverImage', { name: 'cover-image' }],
    ['seo', { name: 'seo', children: new Map([['metaTitle', { name: 'meta-title' }]]) }],
  ]);

  it('renames fields (group children too), keeps explicit null and leaves absent fields absent', () => {
    const data = gql({ coverImage: null, seo: [gql({ metaTitle: 'T' })], title: 'Hello' });
    const out = toWriteData(data, plan);
    expect(out).toEqual({ 'cover-image': null, seo: [{ 'meta-title': 'T' }], title: 'Hello' });
    expect(Object.getPrototypeOf(out.seo && (out.seo as object[])[0])).toBe(Object.prototype);
    expect(toWriteData(gql({ title: 'x' }), plan)).toEqual({ title: 'x' });
  });
});

describe('typed sort → the REST sort string', () => {
  it('joins enum values in order, or leaves sort out', () => {
    expect(toSortString(['title:ASC', 'created_at:DESC'])).toBe('title:ASC,created_at:DESC');
    expect(toSortString([])).toBeUndefined();
    expect(toSortString(null)).toBeUndefined();
  });
});
