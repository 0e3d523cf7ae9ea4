import type { Config } from '../../config.ts';
import type { Ctx, ShownContent } from '../../context.ts';

/**
 * The answers a CDN may keep (docs/foundation.md, "Scaling out", "The CDN"): published reads of a
 * delivery token, REST and GraphQL GET alike. They carry a shared-cache lifetime, a strong tag, a
 * `Vary` naming what else the answer depends on, and purge tags naming everything it shows, so a
 * purge by tag (./purger.ts) reaches exactly the answers a change alters. Every other answer keeps
 * `Cache-Control: no-cache`.
 *
 * Tags: `p:<project>` every answer of the project, `c:<collection>` every answer showing an entry of
 * the collection, `l:<collection>` its listings (an entry joining one shows nowhere before), `e:<entry>`
 * every answer showing or linking the entry, `a:<asset>` every answer showing the asset through a
 * media field (uuids throughout).
 */

export type EdgeConfig = Pick<Config, 'EDGE_MAX_AGE' | 'EDGE_SWR' | 'EDGE_TAG_HEADER'>;

export const projectTag = (uuid: string): string => `p:${uuid}`;
export const collectionTag = (uuid: string): string => `c:${uuid}`;
export const listTag = (uuid: string): string => `l:${uuid}`;
export const entryTag = (uuid: string): string => `e:${uuid}`;
export const assetTag = (uuid: string): string => `a:${uuid}`;

/** Whether the answers to this request may be kept by a CDN. */
export const edgeCacheable = (ctx: Pick<Ctx, 'scope'>): boolean => ctx.scope?.delivery === true;

/** Starts collecting what a delivery token's read shows (src/entries/reads/serialize.ts fills it). */
export function watchShown(ctx: Ctx): ShownContent | undefined {
  if (!edgeCacheable(ctx)) return undefined;
  ctx.shown ??= { entries: new Set(), assets: new Set(), collections: new Set(), lists: new Set() };
  return ctx.shown;
}

/** The tags of an answer: its project's, then what it showed, in a stable order. */
export function tagsOf(projectUuid: string, shown: ShownContent | undefined): string[] {
  const tags = [projectTag(projectUuid)];
  if (!shown) return tags;
  for (const c of [...shown.collections].sort()) tags.push(collectionTag(c));
  for (const c of [...shown.lists].sort()) tags.push(listTag(c));
  for (const e of [...shown.entries].sort()) tags.push(entryTag(e));
  for (const a of [...shown.assets].sort()) tags.push(assetTag(a));
  return tags;
}

/** Cloudflare's `Cache-Tag` separates tags with commas; `Surrogate-Key` (Varnish xkey, Fastly) with spaces. */
export const tagHeaderValue = (config: EdgeConfig, tags: readonly string[]): string =>
  tags.join(config.EDGE_TAG_HEADER.toLowerCase() === 'cache-tag' ? ',' : ' ');

/** The tag header of an answer, to be stored with it so a cached copy names the same tags. */
export const tagHeader = (config: EdgeConfig, tags: readonly string[]): Record<string, string> => ({ [config.EDGE_TAG_HEADER]: tagHeaderValue(config, tags) });

/**
 * What a CDN keys on beside the URL: the token (a delivery token's answers are its own: scope and
 * rate budget), the project, the media type a GraphQL answer is negotiated by, the encoding.
 */
export const REST_VARY = 'Authorization, project-id, Accept-Encoding';
export const GRAPHQL_VARY = 'Authorization, project-id, Accept, Accept-Encoding';

/**
 * The caching headers of a delivery token's published answer. The tag is strong: one tag, one JSON
 * text (compressed copies differ in bytes, which `Vary: Accept-Encoding` keeps apart). `max-age=0`
 * keeps browsers revalidating while the CDN holds the answer until a purge or `s-maxage`.
 */
export function edgeHeaders(config: EdgeConfig, etag: string, vary: string): Record<string, string> {
  return {
    'Cache-Control': `public, max-age=0, s-maxage=${config.EDGE_MAX_AGE}, stale-while-revalidate=${config.EDGE_SWR}`,
    ETag: strongEtag(etag),
    Vary: vary,
  };
}

export const strongEtag = (etag: string): string => etag.replace(/^W\//, '');
