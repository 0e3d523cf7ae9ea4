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

/**
 * Runs before the renderer: fetches the document (the project's typed one when headers are known,
 * else the generic one) and mounts Scalar on it with those headers in its authentication box. The
 * headers come from the page's config (the first start's, for a local browser only: see
 * src/edge/local-headers.ts) or from the form above the reference, and are kept for the tab's session
 * only. Kept out of the page so the page carries no inline script.
 */
export const BOOT_SCRIPT = `(function () {
  var config = JSON.parse(document.getElementById('api-reference-config').textContent);
  var STORE = 'cms-api-reference-headers';
  var instance;

  function remembered() {
    try { return JSON.parse(sessionStorage.getItem(STORE) || 'null'); } catch (e) { return null; }
  }
  function remember(h) {
    try { if (h) sessionStorage.setItem(STORE, JSON.stringify(h)); else sessionStorage.removeItem(STORE); } catch (e) { /* storage off: this visit only */ }
  }
  function say(text, failed) {
    var status = document.getElementById('project-headers-status');
    status.textContent = text;
    status.className = failed ? 'failed' : '';
  }
  function authentication(h) {
    return {
      preferredSecurityScheme: [['projectId', 'bearer']],
      // GraphiQL's placeholders until headers are known (Scalar's own is a base64 joke, not a hint).
      securitySchemes: { projectId: { value: h ? h.projectId : '<project uuid>' }, bearer: { token: h ? h.token : '<token>' } },
    };
  }
  function fetchDocument(h) {
    var headers = h ? { 'project-id': h.projectId, Authorization: 'Bearer ' + h.token } : {};
    return fetch(config.documentUrl, { headers: headers, credentials: 'omit', cache: 'no-store' }).then(function (res) {
      return res.json().then(function (body) { return { ok: res.ok, status: res.status, body: body }; });
    });
  }
  function mount(doc, h) {
    var settings = Object.assign({}, config.scalar, { content: doc, authentication: authentication(h) });
    if (instance) instance.destroy();
    instance = Scalar.createApiReference('#reference', settings);
  }
  function load(h) {
    say(h ? 'Loading the project\u2019s reference\u2026' : '', false);
    return fetchDocument(h).then(function (r) {
      if (r.ok) {
        mount(r.body, h);
        if (h) say('Showing the typed reference of this project\u2019s collections.', false);
        return;
      }
      // Headers that fail: the server's reason, and the generic reference meanwhile.
      say('The project\u2019s reference could not be loaded (' + r.status + '): ' + (r.body && r.body.message ? r.body.message : 'unknown error'), true);
      return fetchDocument(null).then(function (g) { mount(g.body, h); });
    }, function (err) {
      say('The reference could not be loaded: ' + err, true);
    });
  }
  function start() {
    var form = document.getElementById('project-headers');
    var initial = remembered() || config.headers || null;
    if (initial) {
      form.elements['project-id'].value = initial.projectId;
      form.elements.token.value = initial.token;
    }
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var projectId = form.elements['project-id'].value.trim();
      var token = form.elements.token.value.trim().replace(/^Bearer\\s+/i, '');
      var h = projectId || token ? { projectId: projectId, token: token } : null;
      remember(h);
      load(h);
    });
    load(initial);
  }
  document.addEventListener('DOMContentLoaded', start);
})();
`;

/** The package exports no path to its browser bundle, so it is found beside the package's entry. */
function standalonePath(): string {
  const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
  return path.join(path.dirname(entry), 'browser', 'standalone.js');
}

let loaded: Promise<DocsAsset> | undefined;

const JS = 'application/javascript; charset=utf-8';

function asset(stem: string, body: Buffer): DocsAsset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return { name: `${DOCS_ASSET_PREFIX}${stem}.${hash}.js`, contentType: JS, body };
}

const boot = asset('boot', Buffer.from(BOOT_SCRIPT));

/** Read on first use (3.5 MB); a failed read is retried on the next request rather than remembered. */
function loadRenderer(): Promise<DocsAsset> {
  loaded ??= readFile(standalonePath()).then(
    (body) => asset('api-reference', body),
    (err: unknown) => {
      loaded = undefined;
      throw err;
    },
  );
  return loaded;
}

/** The reference page's files, for the static-asset route. */
export const docsAssets = async (): Promise<readonly DocsAsset[]> => [await loadRenderer(), boot];

/** Where the page loads its scripts from: the boot script first, then the renderer. */
export const docsScriptUrls = async (): Promise<{ boot: string; renderer: string }> => ({
  boot: `/static/${boot.name}`,
  renderer: `/static/${(await loadRenderer()).name}`,
});
