import { builder } from '../common/builder.ts';
import { createPreviewToken, listPreviewTokens, revokePreviewToken, serializePreviewToken } from '../../../auth/token-operations.ts';

/** Preview tokens for frontends' draft mode: the GraphQL twin of `/api/preview-tokens` (same operations, same errors). */

type PreviewTokenView = ReturnType<typeof serializePreviewToken>;
type IssuedPreviewToken = Awaited<ReturnType<typeof createPreviewToken>>;

const PreviewTokenType = builder.objectRef<PreviewTokenView>('PreviewToken').implement({
  description: 'A read-only token (published, draft and release views) limited in time, and optionally to collections or one release. Its secret is shown only when issued.',
  fields: (t) => ({
    id: t.exposeID('id'),
    prefix: t.exposeString('prefix'),
    collections: t.stringList({ nullable: true, description: 'The only collections it reads; null: all.', resolve: (p) => p.collections ?? null }),
    release: t.id({ nullable: true, description: 'The release whose preview it reads (besides the published view); null: any view.', resolve: (p) => p.release ?? null }),
    expiresAt: t.string({ nullable: true, resolve: (p) => p.expires_at }),
    lastUsedAt: t.string({ nullable: true, resolve: (p) => p.last_used_at }),
    createdAt: t.string({ resolve: (p) => p.created_at }),
    revokedAt: t.string({ nullable: true, resolve: (p) => p.revoked_at }),
  }),
});

const IssuedPreviewTokenType = builder.objectRef<IssuedPreviewToken>('IssuedPreviewToken').implement({
  description: 'A preview token just issued, with its secret (sent like an API token).',
  fields: (t) => ({
    id: t.exposeID('id'),
    token: t.exposeString('token'),
    expiresAt: t.string({ nullable: true, resolve: (p) => p.expires_at }),
  }),
});

builder.queryFields((t) => ({
  previewTokens: t.field({
    nullable: true,
    extensions: { ability: 'admin' },
    type: [PreviewTokenType],
    description: "The project's preview tokens, revoked and expired ones included, without secrets.",
    resolve: async (_root, _args, context) => listPreviewTokens(await context.auth()),
  }),
}));

builder.mutationFields((t) => ({
  createPreviewToken: t.field({
    nullable: true,
    extensions: { ability: 'admin' },
    type: IssuedPreviewTokenType,
    description: 'Issues a preview token valid for `expiresIn` seconds (at most 7 days), optionally limited to collections or one release.',
    args: {
      expiresIn: t.arg.int({ required: true }),
      collections: t.arg.stringList(),
      release: t.arg.id(),
    },
    resolve: async (_root, args, context) =>
      createPreviewToken(await context.auth(), { expires_in: args.expiresIn, collections: args.collections ?? undefined, release: args.release == null ? undefined : String(args.release) }),
  }),
  revokePreviewToken: t.field({
    nullable: true,
    extensions: { ability: 'admin' },
    type: PreviewTokenType,
    description: 'Revokes a preview token: every replica refuses it from then on (401).',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => revokePreviewToken(await context.auth(), String(args.id)),
  }),
}));
