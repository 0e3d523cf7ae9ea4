import { createHash } from 'node:crypto';
import { Kind, visit, type DocumentNode } from 'graphql';

/**
 * The tag of a published GraphQL read (docs/graphql.md, "HTTP caching"): what the conditional-GET
 * plugin (src/graphql/plugins/result/use-http-caching.ts), the read-cache plugin and the early lane
 * all tag with, so a cached answer carries the tag its full-path twin would.
 */
const TAG_VERSION = 'g1';

// The whole document is walked, so a draft asked for inside a fragment counts too.
export function asksForDraft(document: DocumentNode, variables: Record<string, unknown> | undefined): boolean {
  let draft = false;
  visit(document, {
    Argument(node) {
      if (node.name.value !== 'state') return;
      const v = node.value;
      const value = v.kind === Kind.VARIABLE ? variables?.[v.name.value] : v.kind === Kind.ENUM || v.kind === Kind.STRING ? v.value : undefined;
      if (value === 'draft') draft = true;
    },
  });
  return draft;
}

/** The weak ETag of a GraphQL answer's body (the cached-answer fast path tags with the same digest). */
export const graphqlEtag = (body: string): string => `W/"${createHash('sha1').update(TAG_VERSION).update('\n').update(body).digest('base64url')}"`;
