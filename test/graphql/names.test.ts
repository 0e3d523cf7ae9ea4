import { describe, expect, it } from 'vitest';
import { assertName } from 'graphql';
import fc from 'fast-check';
import {
  NameRegistry,
  camelCase,
  claimCollectionType,
  claimFieldName,
  collectionNames,
  enumValueNames,
  fieldRegistry,
  pascalCase,
  pluralOf,
  singularTypeBase,
  typeRegistry,
} from '../../src/graphql/schema/typed/names.ts';

describe('the naming rule of the typed schema', () => {
  it('camelCases kebab-case field names and PascalCases singular type names', () => {
    expect(camelCase('cover-image')).toBe('coverImage');
    expect(camelCase('seo-meta-title')).toBe('seoMetaTitle');
    expect(pascalCase('blog-posts')).toBe('BlogPosts');
    expect(singularTypeBase('blog-posts')).toBe('BlogPost');
    expect(singularTypeBase('categories')).toBe('Category');
    expect(singularTypeBase('news')).toBe('News');
    expect(pluralOf('BlogPost')).toBe('BlogPosts');
    expect(pluralOf('Category')).toBe('Categories');
  });

  it('prefixes names that would start with a digit and never starts a name with __', () => {
    expect(camelCase('2fa-code')).toBe('_2faCode');
    expect(singularTypeBase('3d-models')).toBe('_3dModel');
    expect(enumValueNames(['1st'])[0].name).toBe('_1ST');
    expect(camelCase('__proto__')).toBe('proto');
    const r = new NameRegistry();
    expect(r.has('__typename')).toBe(true);
  });

  it('gives a clashing collection type the Content suffix, then a counter', () => {
    const types = typeRegistry(['Asset', 'Project', 'Entry']);
    expect(claimCollectionType('assets', types)).toBe('AssetContent');
    expect(claimCollectionType('project', types)).toBe('ProjectContent');
    expect(claimCollectionType('query', types)).toBe('QueryContent');
    expect(claimCollectionType('string', types)).toBe('StringContent');
    expect(claimCollectionType('asset', types)).toBe('AssetContent2');
    expect(claimCollectionType('posts', types)).toBe('Post');
  });

  it('derives root fields and helper types from the final type name', () => {
    const types = typeRegistry(['Project']);
    const queries = new NameRegistry(['project', 'collections']);
    const mutations = new NameRegistry(['addProjectLocale']);
    const project = collectionNames(claimCollectionType('project', types), types, queries, mutations);
    expect(project).toMatchObject({ type: 'ProjectContent', single: 'projectContent', list: 'projectContents', create: 'createProjectContent', where: 'ProjectContentWhere' });
    const news = collectionNames(claimCollectionType('news', types), types, queries, mutations);
    expect(news).toMatchObject({ type: 'News', single: 'news', list: 'newsList', update: 'updateNews' });
    const posts = collectionNames(claimCollectionType('posts', types), types, queries, mutations);
    expect(posts).toMatchObject({ type: 'Post', single: 'post', list: 'posts', page: 'PostPage', sort: 'PostSort', input: 'PostInput', patchInput: 'PostPatchInput' });
  });

  it('a helper name already taken by a collection type takes a counter', () => {
    const types = typeRegistry([]);
    const q = new NameRegistry();
    const m = new NameRegistry();
    const postWhereType = claimCollectionType('post-where', types);
    const postType = claimCollectionType('posts', types);
    expect(postWhereType).toBe('PostWhere');
    expect(collectionNames(postType, types, q, m).where).toBe('PostWhere2');
  });

  it('gives custom fields that clash with system fields or each other the Field suffix', () => {
    const r = fieldRegistry();
    expect(claimFieldName(r, 'uuid')).toBe('uuidField');
    expect(claimFieldName(r, 'or')).toBe('orField');
    expect(claimFieldName(r, 'cover-image')).toBe('coverImage');
    expect(claimFieldName(r, 'coverImage')).toBe('coverImageField');
    expect(claimFieldName(r, 'a-1')).toBe('a1');
    expect(claimFieldName(r, 'a1')).toBe('a1Field');
    expect(claimFieldName(r, 'a1')).toBe('a1Field2');
  });

  it('maps enumeration values to UPPER_SNAKE_CASE, keeping the stored string as the value', () => {
    expect(enumValueNames(['draft review', 'in-progress', 'Done', 'in progress', 'in-progress', ''])).toEqual([
      { name: 'DRAFT_REVIEW', value: 'draft review' },
      { name: 'IN_PROGRESS', value: 'in-progress' },
      { name: 'DONE', value: 'Done' },
      { name: 'IN_PROGRESS_2', value: 'in progress' },
      { name: 'EMPTY', value: '' },
    ]);
  });

  it('always produces valid, unique GraphQL names (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 20 }), { minLength: 1, maxLength: 20 }), (sources) => {
        const types = typeRegistry(['Asset']);
        const fields = fieldRegistry();
        const typeNames = sources.map((s) => claimCollectionType(s, types));
        const fieldNames = sources.map((s) => claimFieldName(fields, s));
        const values = enumValueNames(sources).map((v) => v.name);
        for (const n of [...typeNames, ...fieldNames, ...values]) {
          expect(() => assertName(n)).not.toThrow();
          expect(n.startsWith('__')).toBe(false);
        }
        expect(new Set(typeNames).size).toBe(typeNames.length);
        expect(new Set(fieldNames).size).toBe(fieldNames.length);
        expect(new Set(values).size).toBe(values.length);
        expect(values).not.toContain('true');
      }),
    );
  });
});
