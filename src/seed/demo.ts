import type { Project } from '../db/generated/prisma/client.ts';
import { Prisma, type Tx } from '../db/client.ts';
import type { Services } from '../context.ts';
import { systemCtx } from '../context.ts';
import { createProject } from '../projects/operations.ts';
import { issueToken } from '../auth/tokens.ts';
import { createCollection, joinTransaction } from '../collections/operations.ts';
import { mintVersion } from '../entries/store/mint.ts';

/** Lock id for "is this the first start?": two replicas starting together seed once. */
const SEED_LOCK = 72707370;

export interface DemoSeed {
  project: Project;
  token: string;
}

const AUTHORS = {
  name: 'Authors',
  slug: 'authors',
  fields: [
    { type: 'text', label: 'Name', name: 'name', validations: { required: { status: true, message: 'An author needs a name.' } } },
    { type: 'longtext', label: 'Bio', name: 'bio' },
    { type: 'media', label: 'Avatar', name: 'avatar', options: { media: { type: 1 } } },
  ],
};

const POSTS = {
  name: 'Posts',
  slug: 'posts',
  fields: [
    { type: 'text', label: 'Title', name: 'title', validations: { required: { status: true, message: 'A post needs a title.' } } },
    { type: 'slug', label: 'Slug', name: 'slug', options: { slug: { field: 'title', readonly: false } }, validations: { unique: { status: true, message: 'This slug is taken.' } } },
    { type: 'richtext', label: 'Body', name: 'body', options: { editor: { type: 1, outputFormat: 'html' } } },
    { type: 'media', label: 'Cover image', name: 'cover', options: { media: { type: 1 } } },
    { type: 'relation', label: 'Author', name: 'author', options: { relation: { collection: 'authors', type: 1 } } },
    { type: 'enumeration', label: 'Tags', name: 'tags', options: { enumeration: { list: ['news', 'howto', 'release'] }, multiple: true } },
    {
      type: 'group',
      label: 'SEO',
      name: 'seo',
      options: { repeatable: false },
      children: [
        { type: 'text', label: 'Meta title', name: 'meta-title', validations: { charcount: { status: true, type: 'Max', max: 60, message: 'At most 60 characters.' } } },
        { type: 'longtext', label: 'Meta description', name: 'meta-description' },
      ],
    },
  ],
};

async function publishedEntry(tx: Tx, ctx: ReturnType<typeof systemCtx>, collectionId: number, data: Record<string, unknown>) {
  const row = await tx.entry.create({
    data: { projectId: ctx.project.id, collectionId, locale: ctx.project.defaultLocale, data: data as Prisma.InputJsonObject },
  });
  await mintVersion(tx, ctx, collectionId, row.id);
  return row;
}

/**
 * First start only (no project exists yet): a demo project with authors and posts, one published
 * entry in each, and a `*` token. One transaction, as the `cms` source (the operator, not the API).
 * Returns null when the database already has projects.
 */
export async function seedDemo(services: Services): Promise<DemoSeed | null> {
  return services.database.prisma.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${SEED_LOCK})`;
      if ((await tx.project.count()) > 0) return null;
      const project = await createProject(tx, { name: 'Demo project', description: 'Created on first start (SEED_DEMO=false turns this off).' });
      const ctx = joinTransaction(systemCtx(services, project, 'seed'), tx);
      const authors = await createCollection(ctx, AUTHORS);
      const posts = await createCollection(ctx, POSTS);
      const ada = await publishedEntry(tx, ctx, authors.id, { name: 'Ada Lovelace', bio: 'Wrote the first published algorithm.' });
      await publishedEntry(tx, ctx, posts.id, {
        title: 'Hello, world',
        slug: 'hello-world',
        body: '# Hello\n\nThis post was created by the **demo seed**. Edit it, publish it, or delete it.',
        author: ada.uuid,
        tags: ['news'],
        seo: { 'meta-title': 'Hello, world', 'meta-description': 'The first post of the demo project.' },
      });
      const token = await issueToken(tx, { projectUuid: project.uuid, abilities: ['*'], name: 'Demo token' });
      return { project: ctx.project, token: token.token };
    },
    { timeout: 30_000 },
  );
}

/** The start banner: what a developer needs to make the first request. */
export function demoBanner(seed: DemoSeed, baseUrl: string): string {
  const rule = '-'.repeat(72);
  return [
    rule,
    'Demo project created (first start). The token is shown only this once.',
    '',
    `  GraphiQL     ${baseUrl}/graphql`,
    `  project-id   ${seed.project.uuid}`,
    `  token        ${seed.token}`,
    '',
    'GraphiQL headers:',
    `  {"project-id": "${seed.project.uuid}", "Authorization": "Bearer ${seed.token}"}`,
    'REST:',
    `  curl -H 'project-id: ${seed.project.uuid}' \\`,
    `       -H 'Authorization: Bearer ${seed.token}' ${baseUrl}/api/posts`,
    'More tokens:',
    `  npx cms token create --project ${seed.project.uuid} --abilities read`,
    rule,
  ].join('\n');
}

/**
 * The start line for a non-terminal log: where to go and how to get a token, never the token itself
 * (logs are kept and shared; the demo token holds every ability).
 */
export function demoStartLine(seed: DemoSeed, baseUrl: string): Record<string, string> {
  return {
    graphiql: `${baseUrl}/graphql`,
    projectId: seed.project.uuid,
    token: `not logged; create one with: npx cms token create --project ${seed.project.uuid} --abilities '*'`,
  };
}
