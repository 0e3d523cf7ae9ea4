import { builder } from '../common/builder.ts';
import { FLAT_PAGING_DEPRECATED, PageInfoType, RELAY_ARG_DESCRIPTIONS, edgeType, edgesOf, pageArgsFor, pagePosition } from '../common/page-info.ts';
import { DEFAULT_PER_PAGE } from '../../limits.ts';
import type { AssetResource } from '../../../assets/resource.ts';
import { getAsset, getAssetByName, listAssets, parseAssetListQuery } from '../../../assets/operations.ts';
import { bulkMetadataBody, bulkUpdateMetadata, metadataUpdatedMessage } from '../../../assets/metadata.ts';
import { zodToAppError } from '../../../errors.ts';
import { authorize } from '../../../context.ts';
import { serializeAsset } from '../../../assets/serialize.ts';
import { CONTENT_READ } from '../common/content-read.ts';

/** The asset object of REST (docs/assets.md). Uploads, single and bulk, are REST-only (multipart). */
export const AssetType = builder.objectRef<AssetResource>('Asset').implement({
  fields: (t) => ({
    id: t.exposeInt('id'),
    uuid: t.exposeString('uuid'),
    filename: t.exposeString('filename'),
    originalFilename: t.exposeString('original_filename'),
    mimeType: t.exposeString('mime_type'),
    size: t.exposeString('size', { description: 'Human-readable, e.g. "1.2 MB".' }),
    bytes: t.exposeInt('bytes'),
    url: t.exposeString('url'),
    originalUrl: t.string({ nullable: true, resolve: (a) => a.original_url }),
    thumbnailUrl: t.string({ nullable: true, resolve: (a) => a.thumbnail_url }),
    metadata: t.field({ type: 'JSON', nullable: true, description: 'width and height (images), and the describing keys set with updateAssetsMetadata.', resolve: (a) => a.metadata }),
    createdAt: t.field({ type: 'DateTime', resolve: (a) => a.created_at }),
    updatedAt: t.field({ type: 'DateTime', resolve: (a) => a.updated_at }),
  }),
});

interface AssetPage {
  data: AssetResource[];
  total: number;
  currentPage: number;
  perPage: number;
}

const AssetEdgeType = edgeType('AssetEdge', AssetType);

const AssetPageType = builder.objectRef<AssetPage>('AssetPage').implement({
  fields: (t) => ({
    data: t.field({ type: [AssetType], resolve: (p) => p.data }),
    edges: t.field({ type: [AssetEdgeType], resolve: (p) => edgesOf(p.data, p.currentPage, p.perPage) }),
    pageInfo: t.field({ type: PageInfoType, resolve: (p) => pagePosition(p.total, p.currentPage, p.perPage, p.data.length) }),
    total: t.exposeInt('total', { deprecationReason: FLAT_PAGING_DEPRECATED }),
    currentPage: t.exposeInt('currentPage', { deprecationReason: FLAT_PAGING_DEPRECATED }),
    perPage: t.exposeInt('perPage', { deprecationReason: FLAT_PAGING_DEPRECATED }),
    lastPage: t.int({ deprecationReason: FLAT_PAGING_DEPRECATED, resolve: (p) => Math.max(1, Math.ceil(p.total / p.perPage)) }),
  }),
});

builder.queryFields((t) => ({
  assets: t.field({
    nullable: true,
    extensions: { ability: 'read', ...CONTENT_READ },
    type: AssetPageType,
    description: 'Assets, newest first. search matches filename, original name or MIME type; type is image, video, audio or document.',
    args: {
      search: t.arg.string(),
      type: t.arg.string(),
      page: t.arg.int(),
      perPage: t.arg.int(),
      first: t.arg.int({ description: RELAY_ARG_DESCRIPTIONS.first }),
      after: t.arg.string({ description: RELAY_ARG_DESCRIPTIONS.after }),
    },
    resolve: async (_root, args, context) => {
      const ctx = await context.auth();
      const paging = pageArgsFor(args, DEFAULT_PER_PAGE);
      const q = parseAssetListQuery({
        search: args.search ?? undefined,
        type: args.type ?? undefined,
        paginate: paging.perPage !== undefined ? String(paging.perPage) : undefined,
        page: paging.page !== undefined ? String(paging.page) : undefined,
      });
      const page = await listAssets(ctx, q);
      return { data: page.data.map((a) => serializeAsset(a, ctx.services.config.PUBLIC_URL)), total: page.total, currentPage: page.page, perPage: page.perPage };
    },
  }),
  assetByName: t.field({
    nullable: true,
    extensions: { ability: 'read', ...CONTENT_READ },
    type: AssetType,
    description: 'One asset by its exact original filename (GET /api/files/name/{filename}); the newest when several share it.',
    args: { filename: t.arg.string({ required: true }) },
    resolve: async (_root, args, context) => {
      const ctx = await context.auth();
      return serializeAsset(await getAssetByName(ctx, args.filename), ctx.services.config.PUBLIC_URL);
    },
  }),
  asset: t.field({
    nullable: true,
    extensions: { ability: 'read', ...CONTENT_READ },
    type: AssetType,
    description: 'One asset by UUID or numeric id.',
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_root, args, context) => {
      const ctx = await context.auth();
      return serializeAsset(await getAsset(ctx, args.id), ctx.services.config.PUBLIC_URL);
    },
  }),
}));

const AssetMetadataInput = builder.inputType('AssetMetadataInput', {
  description: 'A key left out is kept; a key sent as null is removed.',
  fields: (t) => ({
    uuid: t.string({ required: true }),
    altText: t.string(),
    title: t.string(),
    caption: t.string(),
    description: t.string(),
    author: t.string(),
    copyright: t.string(),
  }),
});

const AssetsPayload = builder.objectRef<{ message: string; data: AssetResource[] }>('AssetsPayload').implement({
  fields: (t) => ({
    message: t.exposeString('message'),
    data: t.field({ type: [AssetType], description: 'The assets in the order of the items.', resolve: (r) => r.data }),
  }),
});

builder.mutationFields((t) => ({
  updateAssetsMetadata: t.field({
    nullable: true,
    extensions: { ability: 'update' },
    type: AssetsPayload,
    description: 'Merges describing metadata into 1-50 assets in one transaction (PATCH /api/files/bulk/metadata). Errors are keyed items.<index>.… in extensions.errors.',
    args: { items: t.arg({ type: [AssetMetadataInput], required: true }) },
    resolve: async (_root, args, context) => {
      const ctx = await context.auth();
      // The ability first, so a caller without it gets FORBIDDEN, never a validation error.
      authorize(ctx, 'update');
      // camelCase in, the REST body's snake_case keys to the one validator; undefined (not sent) stays out.
      const items = args.items.map(({ altText, ...rest }) => ({ ...rest, ...(altText !== undefined ? { alt_text: altText } : {}) }));
      const parsed = bulkMetadataBody.safeParse({ items: items.map((i) => Object.fromEntries(Object.entries(i).filter(([, v]) => v !== undefined))) });
      if (!parsed.success) throw zodToAppError(parsed.error);
      const assets = await bulkUpdateMetadata(ctx, parsed.data);
      const data = assets.map((a) => serializeAsset(a, ctx.services.config.PUBLIC_URL));
      return { message: metadataUpdatedMessage(data.length), data };
    },
  }),
}));
