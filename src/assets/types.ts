/**
 * Uploads accepted by MIME type (docs/assets.md: other types are a 422). Types a browser would run as a page
 * (HTML, SVG, JavaScript) are left out: files are served from the API's own origin.
 */
export const ALLOWED_TYPES: Record<string, string[]> = {
  'image/jpeg': ['jpg', 'jpeg'],
  'image/png': ['png'],
  'image/gif': ['gif'],
  'image/webp': ['webp'],
  'image/avif': ['avif'],
  'image/bmp': ['bmp'],
  'image/tiff': ['tif', 'tiff'],
  'video/mp4': ['mp4', 'm4v'],
  'video/webm': ['webm'],
  'video/quicktime': ['mov'],
  'video/ogg': ['ogv'],
  'audio/mpeg': ['mp3'],
  'audio/wav': ['wav'],
  'audio/ogg': ['ogg', 'oga'],
  'audio/aac': ['aac'],
  'audio/flac': ['flac'],
  'audio/mp4': ['m4a'],
  'audio/webm': ['weba'],
  'application/pdf': ['pdf'],
  'text/plain': ['txt'],
  'text/csv': ['csv'],
  'text/markdown': ['md'],
  'application/json': ['json'],
  'application/zip': ['zip'],
  'application/rtf': ['rtf'],
  'application/msword': ['doc'],
  'application/vnd.ms-excel': ['xls'],
  'application/vnd.ms-powerpoint': ['ppt'],
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': ['docx'],
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': ['xlsx'],
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': ['pptx'],
  'application/vnd.oasis.opendocument.text': ['odt'],
  'application/vnd.oasis.opendocument.spreadsheet': ['ods'],
  'application/vnd.oasis.opendocument.presentation': ['odp'],
};

const BY_EXTENSION = new Map(Object.entries(ALLOWED_TYPES).flatMap(([mime, exts]) => exts.map((e) => [e, mime] as const)));

const extensionOf = (filename: string) => /\.([a-z0-9]{1,8})$/i.exec(filename)?.[1]?.toLowerCase();

/**
 * The stored MIME type: the declared one when allowed; when the client declared nothing useful
 * (`application/octet-stream`, as curl does), the one its extension names. Null = not allowed.
 */
export function acceptedMimeType(declared: string | undefined, filename: string): string | null {
  const mime = (declared ?? '').split(';')[0].trim().toLowerCase();
  if (mime === 'audio/x-wav' || mime === 'audio/wave') return 'audio/wav';
  if (ALLOWED_TYPES[mime]) return mime;
  if (mime === '' || mime === 'application/octet-stream') {
    const ext = extensionOf(filename);
    return (ext && BY_EXTENSION.get(ext)) ?? null;
  }
  return null;
}

/** A name safe in a URL path and a Content-Disposition header: letters, digits, dot, dash, underscore. */
export function safeFilename(original: string): string {
  const base = original.split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .normalize('NFKD')
    .replace(/[^\w.-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(-200);
  return cleaned || 'file';
}

export const ASSET_KINDS = ['image', 'video', 'audio', 'document'] as const;
export type AssetKind = (typeof ASSET_KINDS)[number];
