import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { ref } from './openapi/components.ts';
import { defineRoutes, type RouteDef } from './route.ts';
import type { Services } from '../context.ts';
import { AppError, notFound, validationFailed } from '../errors.ts';
import { deleteAsset, getAsset, listAssets, parseAssetListQuery, uploadAsset } from '../assets/operations.ts';
import { serializeAsset } from '../assets/serialize.ts';
import { assetStorage } from '../assets/storage.ts';
import { isFlag } from '../content/query.ts';
import { isUuid } from '../content/types.ts';
import { laravelPage } from '../content/paginator.ts';
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

function multipartError(err: unknown, limit: number): unknown {
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new AppError('PAYLOAD_TOO_LARGE', `The file may not be greater than ${Math.floor(limit / 1024)} kilobytes.`);
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' || code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return validationFailed({ file: ['Send one file in the multipart/form-data field `file`.'] });
  }
  return err;
}

/** Asset JSON routes (facts §7). `/api/files...` is fixed, so it wins over the `/api/:collection` catch-alls. */
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
export const multipartRoutes: RouteDef[] = [uploadRoute];

const INLINE = /^(image|video|audio)\/|^application\/pdf$|^text\/plain$/;

/**
 * Public file bytes at the asset `url` (no auth: facts §7). `variant` is accepted; no derived variants
 * are generated, so every variant is the original. Served with nosniff and a sandbox CSP, since the
 * bytes come from users and share the API's origin.
 */
async function serveFile(services: Services, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { uuid } = req.params as { uuid: string };
  const asset = isUuid(uuid) ? await services.database.prisma.asset.findFirst({ where: { uuid: uuid.toLowerCase(), deletedAt: null } }) : null;
  const stored = asset ? await assetStorage(services).get(asset.storageKey) : null;
  if (!asset || !stored) throw notFound('Asset not found');
  const disposition = INLINE.test(asset.mimeType) ? 'inline' : 'attachment';
  return reply
    .header('Content-Type', asset.mimeType)
    .header('Content-Length', String(stored.size))
    .header('Content-Disposition', `${disposition}; filename="${asset.filename}"`)
    .header('Cache-Control', 'public, max-age=31536000, immutable')
    .header('ETag', `"${asset.uuid}"`)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Content-Security-Policy', "default-src 'none'; sandbox")
    .send(stored.body);
}

/**
 * The multipart parser applies only inside this scope, so JSON routes never see multipart bodies.
 * `register` is the server's route registration (auth, rate limit, error mapping).
 */
export async function mountMultipartRoutes<S extends Services>(
  scope: FastifyInstance,
  services: S,
  register: (app: FastifyInstance, services: S, route: RouteDef) => void,
): Promise<void> {
  await scope.register(multipart, { limits: { fileSize: services.config.UPLOAD_LIMIT_BYTES, files: 1 } });
  for (const route of multipartRoutes) register(scope, services, route);
  scope.get('/files/:uuid', (req, reply) => serveFile(services, req, reply));
  scope.get('/files/:uuid/:filename', (req, reply) => serveFile(services, req, reply));
}
