import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The API reference's renderer, served from this server: Scalar's standalone browser bundle, read from
 * the installed `@scalar/api-reference` package and offered under a content-hashed name
 * (src/http/static-assets.ts serves it; browsers keep it for a year).
 */

export interface DocsAsset {
  name: string;
  contentType: string;
  body: Buffer;
}

export const DOCS_ASSET_PREFIX = 'scalar-';

/** The package exports no path to its browser bundle, so it is found beside the package's entry. */
function standalonePath(): string {
  const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
  return path.join(path.dirname(entry), 'browser', 'standalone.js');
}

let loaded: Promise<DocsAsset> | undefined;

/** Read on first use (3.5 MB); a failed read is retried on the next request rather than remembered. */
function loadRenderer(): Promise<DocsAsset> {
  loaded ??= readFile(standalonePath()).then(
    (body) => {
      const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
      return { name: `${DOCS_ASSET_PREFIX}api-reference.${hash}.js`, contentType: 'application/javascript; charset=utf-8', body };
    },
    (err: unknown) => {
      loaded = undefined;
      throw err;
    },
  );
  return loaded;
}

/** The reference page's files, for the static-asset route. */
export const docsAssets = async (): Promise<readonly DocsAsset[]> => [await loadRenderer()];

/** Where the page loads the renderer from. */
export const rendererUrl = async (): Promise<string> => `/static/${(await loadRenderer()).name}`;
