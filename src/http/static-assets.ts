import type { FastifyInstance } from 'fastify';
import { GRAPHIQL_ASSET_PREFIX, graphiqlAssets } from '../graphql/graphiql/page.ts';
import { DOCS_ASSET_PREFIX, docsAssets } from '../rest/docs-assets.ts';

/**
 * Static files the browser pages need (GraphiQL's editor, the API reference's renderer), served from
 * memory at /static/<name>. Every name carries a hash of its content, so a file never changes under
 * its name and browsers may keep it for a year without asking again.
 */

export interface StaticAsset {
  name: string;
  contentType: string;
  body: Buffer;
}

/** The files one page owns, all named `<prefix>…`: only the owner of a requested name is loaded. */
export interface StaticAssetSource {
  prefix: string;
  load: () => Promise<readonly StaticAsset[]>;
}

const SOURCES: readonly StaticAssetSource[] = [
  { prefix: GRAPHIQL_ASSET_PREFIX, load: graphiqlAssets },
  { prefix: DOCS_ASSET_PREFIX, load: docsAssets },
];

const IMMUTABLE = 'public, max-age=31536000, immutable';

export function mountStaticAssets(app: FastifyInstance, sources: readonly StaticAssetSource[] = SOURCES): void {
  app.get<{ Params: { name: string } }>('/static/:name', async (req, reply) => {
    const { name } = req.params;
    const source = sources.find((s) => name.startsWith(s.prefix));
    const asset = source && (await source.load()).find((a) => a.name === name);
    if (!asset) return reply.status(404).send({ message: `No static file named "${name}" (names change when the server is upgraded: reload the page).` });
    return reply
      .header('Cache-Control', IMMUTABLE)
      .header('X-Content-Type-Options', 'nosniff')
      .header('ETag', `"${name}"`)
      .type(asset.contentType)
      .send(asset.body);
  });
}
