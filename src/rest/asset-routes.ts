import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { arrayOf, ref } from './openapi/components.ts';
import { defineRoutes, type RouteDef } from './route.ts';
import type { MultipartFile } from '@fastify/multipart';
import { validationFailed } from '../errors.ts';
import { checkBoundary, multipartError } from './multipart-errors.ts';
import {
  BULK_UPLOAD_MAX,
  bulkUploadAssets,
  deleteAsset,
  getAsset,
  getAssetByName,
  listAssets,
  parseAssetListQuery,
  uploadAsset,
  type UploadInput,
} from '../assets/operations.ts';
import { bulkMetadataBody, bulkUpdateMetadata, metadataUpdatedMessage, type BulkMetadataInput } from '../assets/metadata.ts';
import { serializeAsset } from '../assets/serialize.ts';
import { openAssetFile } from '../assets/files.ts';
import { drawRenderBudget } from '../edge/render-budget.ts';
import type { EdgeServices } from '../edge/services.ts';
import { isFlag } from './list-query.ts';
import { laravelPage } from './paginator.ts';
import { requestPath } from './content-routes.ts';

/** POST /api/files: needs the multipart parser, so it is registered in its own scope (see `mountMultipartRoutes`). */
export const uploadRoute: RouteDef = {
  method: 'POST',
  url: '/api/files',
  successStatus: 201,
  response: { schema: ref('Asset') },
  ability: 'create',
  summary: 'Upload a file (multipart/form-data, field `file`)',
  tags: ['assets'],
  handler: async (ctx, { raw }) => {
    if (!raw.isMultipart?.()) throw validationFailed({ file: ['The file field is required: send multipart/form-data with a `file` part.'] });
    checkBoundary(raw.headers['content-type']);
    const limit = ctx.services.config.UPLOAD_LIMIT_BYTES;
    let part;
    try {
      part = await raw.file({ limits: { fileSize: limit, files: 1, fields: 20, parts: 30 } });
    } catch (err) {
      throw multipartError(err, limit);
    }
    if (!part || part.fieldname !== 'file') throw validationFailed({ file: ['The file field is required.'] });
    try {
      const asset = await uploadAsset(ctx, { filename: part.filename, mimetype: part.mimetype, stream: part.file, truncated: () => part.file.truncated });
      return { status: 201, body: serializeAsset(asset, ctx.services.config.PUBLIC_URL) };
    } catch (err) {
      throw multipartError(err, limit);
    }
  },
};

/** POST /api/files/bulk/upload: `files[]` parts (also `files`), at most 20, all stored or none. */
export const bulkUploadRoute: RouteDef = {
  method: 'POST',
  url: '/api/files/bulk/upload',
  ability: 'create',
  summary: `Upload up to ${BULK_UPLOAD_MAX} files at once (multipart/form-data, field \`files[]\`); all or nothing`,
  tags: ['assets'],
  successStatus: 201,
  response: { schema: { type: 'object', required: ['message', 'data'], properties: { message: { type: 'string' }, data: arrayOf(ref('Asset')) } } },
  handler: async (ctx, { raw }) => {
    const required = () => validationFailed({ files: ['The files field is required: send multipart/form-data with one or more `files[]` parts.'] });
    if (!raw.isMultipart?.()) throw required();
    checkBoundary(raw.headers['content-type']);
    const limit = ctx.services.config.UPLOAD_LIMIT_BYTES;
    // One more than allowed, so the operation sees the 21st file and answers with the limit, not the parser.
    const parts = raw.files({ limits: { fileSize: limit, files: BULK_UPLOAD_MAX + 1, fields: 20, parts: BULK_UPLOAD_MAX + 21 } });
    async function* files(): AsyncGenerator<UploadInput> {
      for await (const part of parts as AsyncIterable<MultipartFile>) {
        if (part.fieldname !== 'files[]' && part.fieldname !== 'files') {
          part.file.resume();
          throw validationFailed({ files: [`Unexpected file field \`${part.fieldname}\`: send the files as \`files[]\`.`] });
        }
        yield { filename: part.filename, mimetype: part.mimetype, stream: part.file, truncated: () => part.file.truncated };
      }
    }
    try {
      const assets = await bulkUploadAssets(ctx, files());
      const data = assets.map((a) => serializeAsset(a, ctx.services.config.PUBLIC_URL));
      return { status: 201, body: { message: `${data.length} file${data.length === 1 ? '' : 's'} uploaded.`, data } };
    } catch (err) {
      throw multipartError(err, limit, 'files');
    }
  },
};

/** Asset JSON routes (docs/assets.md). `/api/files...` is fixed, so it wins over the `/api/:collection` catch-alls. */
export const assetRoutes = defineRoutes([
  {
    method: 'GET',
    url: '/api/files',
    successStatus: 200,
    response: { schema: ref('AssetPaginator') },
    ability: 'read',
    summary: 'List assets, newest first (search, type=image|video|audio|document, paginate, page)',
    tags: ['assets'],
    handler: async (ctx, input) => {
      const page = await listAssets(ctx, parseAssetListQuery(input.query));
      const data = page.data.map((a) => serializeAsset(a, ctx.services.config.PUBLIC_URL));
      return { body: laravelPage(data, { ...page, path: requestPath(ctx, input), query: input.query }) };
    },
  },
  {
    method: 'GET',
    url: '/api/files/name/:filename',
    ability: 'read',
    summary: 'Get an asset by its exact original filename (the newest when several share it)',
    tags: ['assets'],
    successStatus: 200,
    response: { schema: ref('Asset') },
    handler: async (ctx, { params }) => ({ body: serializeAsset(await getAssetByName(ctx, params.filename), ctx.services.config.PUBLIC_URL) }),
  },
  {
    method: 'PATCH',
    url: '/api/files/bulk/metadata',
    ability: 'update',
    summary: 'Edit the metadata of up to 50 assets: only the keys sent are merged, null removes a key; all or nothing',
    tags: ['assets'],
    successStatus: 200,
    response: { schema: { type: 'object', required: ['message', 'data'], properties: { message: { type: 'string' }, data: arrayOf(ref('Asset')) } } },
    body: bulkMetadataBody,
    handler: async (ctx, { body }) => {
      const assets = await bulkUpdateMetadata(ctx, body as BulkMetadataInput);
      const data = assets.map((a) => serializeAsset(a, ctx.services.config.PUBLIC_URL));
      return { body: { message: metadataUpdatedMessage(data.length), data } };
    },
  },
  {
    method: 'GET',
    url: '/api/files/:id',
    successStatus: 200,
    response: { schema: ref('Asset') },
    ability: 'read',
    summary: 'Get an asset by UUID or numeric id',
    tags: ['assets'],
    handler: async (ctx, { params }) => ({ body: serializeAsset(await getAsset(ctx, params.id), ctx.services.config.PUBLIC_URL) }),
  },
  {
    method: 'DELETE',
    url: '/api/files/:id',
    successStatus: 200,
    response: { schema: ref('Message') },
    ability: 'delete',
    summary: 'Delete an asset (soft; ?force=1 also removes the file)',
    tags: ['assets'],
    handler: async (ctx, { params, query }) => ({ body: await deleteAsset(ctx, params.id, isFlag(query.force)) }),
  },
]);

/** Routes that must be registered inside the multipart scope instead of the root. */
export const multipartRoutes: RouteDef[] = [uploadRoute, bulkUploadRoute];

const INLINE = /^(image|video|audio)\/|^application\/pdf$|^text\/plain$/;

/**
 * Public file bytes at the asset `url` (no auth: docs/assets.md), `?variant=thumbnail|original` or
 * `?width=&format=` (src/assets/files.ts). Served with nosniff and a sandbox CSP, since the bytes
 * come from users and share the API's origin.
 */
async function serveFile(services: EdgeServices, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { uuid } = req.params as { uuid: string };
  const file = await openAssetFile(services, uuid, (req.query ?? {}) as Record<string, unknown>, { beforeRender: () => drawRenderBudget(services, req.ip) });
  const disposition = INLINE.test(file.contentType) ? 'inline' : 'attachment';
  return reply
    .header('Content-Type', file.contentType)
    .header('Content-Length', String(file.size))
    .header('Content-Disposition', `${disposition}; filename="${file.filename}"`)
    .header('Cache-Control', 'public, max-age=31536000, immutable')
    .header('ETag', file.etag)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Content-Security-Policy', "default-src 'none'; sandbox")
    .send(file.body);
}

/**
 * The multipart parser applies only inside this scope, so JSON routes never see multipart bodies.
 * `register` is the server's route registration (auth, rate limit, error mapping).
 */
export async function mountMultipartRoutes<S extends EdgeServices>(
  scope: FastifyInstance,
  services: S,
  register: (app: FastifyInstance, services: S, route: RouteDef) => void,
): Promise<void> {
  await scope.register(multipart, { limits: { fileSize: services.config.UPLOAD_LIMIT_BYTES, files: 1 } });
  for (const route of multipartRoutes) register(scope, services, route);
  scope.get('/files/:uuid', (req, reply) => serveFile(services, req, reply));
  scope.get('/files/:uuid/:filename', (req, reply) => serveFile(services, req, reply));
}
