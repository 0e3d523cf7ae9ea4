import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { schema as core } from '../../src/graphql/schema/core/index.ts';
import { buildTypedSchema } from '../../src/graphql/schema/typed/build.ts';
import { collectionSchema, largeProject } from './schema-fixtures.ts';

// The schemas are built by Pothos, which loads graphql's CJS build; printing them needs the same build.
const graphql = createRequire(import.meta.url)('graphql') as typeof import('graphql');
const { printSchema, printType, validateSchema } = graphql;

const blog = () => [
  collectionSchema(1, 'authors', [{ name: 'name', type: 'text' }]),
  collectionSchema(2, 'blog-posts', [
    { name: 'title', type: 'text', validations: { required: { status: true } } },
    { name: 'cover-image', type: 'media', options: { media: { type: 2 } } },
    { name: 'author', type: 'relation', options: { relation: { collection: 1, type: 1 } } },
    { name: 'status', type: 'enumeration', options: { enumeration: { list: ['draft review', 'in-progress'] } } },
    { name: 'uuid', type: 'text' },
    { name: 'secret', type: 'password' },
    { name: 'seo', type: 'group', options: { repeatable: true }, children: [{ name: 'meta-title', type: 'text' }] },
  ]),
  collectionSchema(3, 'entries', [{ name: 'x', type: 'text' }]),
  collectionSchema(4, 'homepage', [{ name: 'headline', type: 'text' }], { isSingleton: true }),
];

describe('typed schema build', () => {
  it('gives each collection its own types and operations, named by the one rule', () => {
    const schema = buildTypedSchema(core, blog());
    expect(validateSchema(schema)).toEqual([]);
    const post = printType(schema.getType('BlogPost')!);
    expect(post).toContain('coverImage: [Asset!]');
    expect(post).toContain('author: Author');
    expect(post).toContain('status: BlogPostStatus');
    expect(post).toContain('uuidField: String');
    expect(post).toContain('seo: [BlogPostSeo!]');
    expect(post).toContain('versions(first: Int, after: String): EntryVersionConnection\n'); // nullable: needs `read`, fails alone (issue 14 §5)
    expect(post).not.toContain('secret');
    expect(printType(schema.getType('BlogPostStatus')!)).toMatch(/DRAFT_REVIEW[\s\S]*IN_PROGRESS/);
    expect(printType(schema.getType('BlogPostInput')!)).toContain('secret: String');
    // A collection whose type name is a core type's gets the suffix; the core type is untouched.
    expect(schema.getType('EntryContent')).toBeDefined();
    const query = schema.getQueryType()!.getFields();
    expect(Object.keys(query)).toEqual(expect.arrayContaining(['blogPosts', 'blogPost', 'authors', 'author', 'entryContents', 'entryContent', 'homepage', 'project', 'entries']));
    expect(query).not.toHaveProperty('homepages');
    const mutation = schema.getMutationType()!.getFields();
    for (const op of ['createBlogPost', 'updateBlogPost', 'publishBlogPost', 'unpublishBlogPost', 'deleteBlogPost', 'revertBlogPost', 'createHomepage']) {
      expect(mutation).toHaveProperty(op);
    }
    expect(String(query.blogPosts.args.map((a) => `${a.name}: ${String(a.type)}`))).toBe(
      'where: BlogPostWhere,sort: [BlogPostSort!],page: Int,perPage: Int,state: ContentState,locale: String,search: String,fallback: Boolean,release: ID,first: Int,after: String',
    );
  });

  it('keeps every core type exactly as the core schema defines it, and the core root fields with their extensions', () => {
    const schema = buildTypedSchema(core, blog());
    for (const [name, type] of Object.entries(core.getTypeMap())) {
      if (name.startsWith('__') || name === 'Query' || name === 'Mutation' || name === 'Subscription') continue;
      expect(printType(schema.getType(name)!), name).toBe(printType(type));
    }
    for (const root of ['getQueryType', 'getMutationType', 'getSubscriptionType'] as const) {
      const typedFields = schema[root]()!.getFields();
      for (const [name, field] of Object.entries(core[root]()!.getFields())) {
        expect(typedFields[name]?.extensions.ability, name).toBe(field.extensions.ability);
      }
    }
  });

  it('declares the ability every typed root field needs', () => {
    const schema = buildTypedSchema(core, blog());
    const abilities = (root: 'getQueryType' | 'getMutationType', names: string[]) => names.map((n) => schema[root]()!.getFields()[n].extensions.ability);
    expect(abilities('getQueryType', ['blogPosts', 'blogPost', 'homepage'])).toEqual(['read', 'read', 'read']);
    expect(abilities('getMutationType', ['createBlogPost', 'updateBlogPost', 'publishBlogPost', 'unpublishBlogPost', 'revertBlogPost', 'deleteBlogPost'])).toEqual([
      'create', 'update', 'update', 'update', 'update', 'delete',
    ]);
  });

  it('is deterministic: the same collections give the same SDL', () => {
    expect(printSchema(buildTypedSchema(core, blog()))).toBe(printSchema(buildTypedSchema(core, blog())));
  });

  it('builds a valid schema for 50 collections of 20 fields (the benchmark size)', () => {
    const schema = buildTypedSchema(core, largeProject(50, 20));
    expect(validateSchema(schema)).toEqual([]);
    const entryTypes = Object.keys(schema.getTypeMap()).filter((n) => /^Collection\d+Item$/.test(n));
    expect(entryTypes).toHaveLength(50);
  });

  it('returns the core schema itself for a project without collections', () => {
    expect(buildTypedSchema(core, [])).toBe(core);
  });
});
