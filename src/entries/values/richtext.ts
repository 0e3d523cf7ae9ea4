import { marked } from 'marked';
import sanitizeHtml from 'sanitize-html';
import { LRUCache } from 'lru-cache';

const ALLOWED = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'h1', 'h2', 'del', 'ins', 'sup', 'sub'],
  allowedAttributes: {
    ...sanitizeHtml.defaults.allowedAttributes,
    img: ['src', 'alt', 'title', 'width', 'height'],
    a: ['href', 'name', 'target', 'title', 'rel'],
    code: ['class'],
    th: ['align'],
    td: ['align'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
};

/**
 * Rendered HTML by markdown source. Published reads render the same immutable text again and again;
 * marked + sanitize-html cost far more than a lookup. Bounded by characters held, not entries.
 */
const cache = new LRUCache<string, string>({
  maxSize: 16 * 1024 * 1024,
  sizeCalculation: (html, md) => html.length + md.length || 1,
});

/** Markdown (the stored richtext value) to sanitized HTML. Raw HTML in the markdown is sanitized, never trusted. */
export function renderMarkdown(markdown: string): string {
  const hit = cache.get(markdown);
  if (hit !== undefined) return hit;
  const html = sanitizeHtml(marked.parse(markdown, { async: false, gfm: true }), ALLOWED).trim();
  cache.set(markdown, html);
  return html;
}
