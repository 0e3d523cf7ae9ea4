import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GraphiQLOptions } from 'graphql-yoga';
import { localFirstStartHeaders, type LocalHeadersSettings } from '../../edge/local-headers.ts';

/**
 * GraphiQL served entirely by this server. Yoga's default page pulls its code from unpkg, so with no
 * internet it is a blank "Loading…" page. `@graphql-yoga/render-graphiql` ships the same editor as
 * strings; its own renderer inlines all 9 MB into every page, so instead each piece becomes a static
 * file under a content-hashed name (cached for a year by browsers) and the page itself is a few lines.
 */

/** A file served by the static-asset route (src/http/static-assets.ts), under /static/<name>. */
export interface GraphiqlAsset {
  name: string;
  contentType: string;
  body: Buffer;
}

const STATIC_PREFIX = '/static/';
export const GRAPHIQL_ASSET_PREFIX = 'graphiql-';

/**
 * Runs before the editor bundle: points Monaco's web workers at our files (the bundle reads
 * MonacoEnvironment while loading), then renders once the bundle has defined `YogaGraphiQL`.
 * Kept out of the page so the page carries no inline script.
 */
const BOOT_SCRIPT = `(function () {
  var config = JSON.parse(document.getElementById('graphiql-config').textContent);
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: function (_moduleId, label) { return config.workers[label]; },
  };
  document.addEventListener('DOMContentLoaded', function () {
    YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), config.options);
  });
})();
`;

interface GraphiqlBundle {
  assets: GraphiqlAsset[];
  url: { js: string; css: string; boot: string; favicon: string; workers: Record<string, string> };
}

function asset(stem: string, ext: string, contentType: string, body: Buffer): GraphiqlAsset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return { name: `${GRAPHIQL_ASSET_PREFIX}${stem}.${hash}.${ext}`, contentType, body };
}

let bundle: Promise<GraphiqlBundle> | undefined;

/** Loaded on first use: the module is 9 MB of source that servers nobody opens GraphiQL on never need. */
function loadBundle(): Promise<GraphiqlBundle> {
  bundle ??= import('@graphql-yoga/render-graphiql/graphiql').then((g) => {
    const js = 'application/javascript; charset=utf-8';
    const favicon = /^data:([^;,]+);base64,(.*)$/s.exec(g.favicon);
    const files = {
      js: asset('editor', 'js', js, Buffer.from(g.js)),
      css: asset('editor', 'css', 'text/css; charset=utf-8', Buffer.from(g.css)),
      boot: asset('boot', 'js', js, Buffer.from(BOOT_SCRIPT)),
      favicon: asset('favicon', 'ico', favicon?.[1] ?? 'image/x-icon', Buffer.from(favicon?.[2] ?? '', 'base64')),
      editorWorkerService: asset('editor-worker', 'js', js, Buffer.from(g.editorWorkerService)),
      json: asset('json-worker', 'js', js, Buffer.from(g.jsonWorker)),
      graphql: asset('graphql-worker', 'js', js, Buffer.from(g.graphqlWorker)),
    };
    const url = (a: GraphiqlAsset) => STATIC_PREFIX + a.name;
    return {
      assets: Object.values(files),
      url: {
        js: url(files.js),
        css: url(files.css),
        boot: url(files.boot),
        favicon: url(files.favicon),
        workers: { editorWorkerService: url(files.editorWorkerService), json: url(files.json), graphql: url(files.graphql) },
      },
    };
  }, (err: unknown) => {
    bundle = undefined; // a failed load is retried by the next request, not remembered
    throw err;
  });
  return bundle;
}

/** The GraphiQL files, for the static-asset route. */
export const graphiqlAssets = async (): Promise<readonly GraphiqlAsset[]> => (await loadBundle()).assets;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * JSON placed inside a <script> element: only `</` (which could close the element) and `<!--` (which
 * changes how the parser reads the rest) can break out, so those `<` are written as `\u003c`.
 */
const jsonForScript = (value: unknown) => JSON.stringify(value).replace(/<(?=[/!])/g, '\\u003c');

/** Yoga's `renderGraphiQL`: the page around the options the `graphiql` factory chose. */
export async function renderGraphiqlPage(options: GraphiQLOptions): Promise<string> {
  const { url } = await loadBundle();
  const title = escapeHtml(options.title ?? 'GraphiQL');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${title}</title>
  <link rel="icon" href="${url.favicon}">
  <link rel="stylesheet" href="${url.css}">
</head>
<body id="body" class="no-focus-outline">
  <noscript>GraphiQL needs JavaScript.</noscript>
  <div id="root">Loading ${title}…</div>
  <script type="application/json" id="graphiql-config">${jsonForScript({ options, workers: url.workers })}</script>
  <script src="${url.boot}"></script>
  <script src="${url.js}"></script>
</body>
</html>
`;
}

// ---------------------------------------------------------------------------------------------
// The first start's headers: the rule lives in src/edge/local-headers.ts, shared with /api/docs.

export { LOCAL_HEADERS_FILE, saveLocalHeaders as saveLocalGraphiqlHeaders } from '../../edge/local-headers.ts';

const PLACEHOLDER_HEADERS = { 'project-id': '<project uuid>', Authorization: 'Bearer <token>' };

export type GraphiqlSettings = LocalHeadersSettings;

/**
 * Yoga's `graphiql` option: the project's example query, and the headers every tab starts with. Those
 * are the first start's real headers only for a local browser on an embedded install that kept them;
 * everyone else gets placeholders to fill in.
 */
export function graphiqlOptions(settings: GraphiqlSettings, defaultQuery: string) {
  return async (_request: Request, server: { req: FastifyRequest; reply: FastifyReply }): Promise<GraphiQLOptions> => {
    const local = await localFirstStartHeaders(settings, server.req);
    // Never kept by any cache: the page may carry a token, and it costs nothing to render.
    void server.reply.header('Cache-Control', 'no-store');
    const headers = JSON.stringify(local ?? PLACEHOLDER_HEADERS, null, 2);
    return {
      title: 'Content gateway',
      defaultQuery,
      // `headers` fills the first tab, `defaultHeaders` every tab opened later.
      headers,
      defaultHeaders: headers,
      shouldPersistHeaders: true,
    };
  };
}
