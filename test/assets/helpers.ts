import type { TestApp } from '../helpers/app.ts';

/** A multipart/form-data body with one file part (what browsers and SDKs send). */
export function multipartBody(opts: { field?: string; filename: string; contentType?: string; content: Buffer | string }) {
  const boundary = `----cmsTest${Math.random().toString(16).slice(2)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${opts.field ?? 'file'}"; filename="${opts.filename}"\r\n` +
      (opts.contentType ? `Content-Type: ${opts.contentType}\r\n` : '') +
      '\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { payload: Buffer.concat([head, Buffer.from(opts.content), tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** 1x1 transparent PNG. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

export async function upload(t: TestApp, headers: Record<string, string>, opts: Parameters<typeof multipartBody>[0]) {
  const { payload, contentType } = multipartBody(opts);
  const res = await t.app.inject({ method: 'POST', url: '/api/files', headers: { ...headers, 'content-type': contentType }, payload });
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
}

export interface FilePart {
  field?: string;
  filename: string;
  contentType?: string;
  content: Buffer | string;
}

/** A multipart/form-data body with several file parts (`files[]` unless a part names its field). */
export function multipartFiles(parts: FilePart[]) {
  const boundary = `----cmsTest${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${p.field ?? 'files[]'}"; filename="${p.filename}"\r\n` +
          (p.contentType ? `Content-Type: ${p.contentType}\r\n` : '') +
          '\r\n',
      ),
      Buffer.from(p.content),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export async function bulkUpload(t: TestApp, headers: Record<string, string>, parts: FilePart[]) {
  const { payload, contentType } = multipartFiles(parts);
  const res = await t.app.inject({ method: 'POST', url: '/api/files/bulk/upload', headers: { ...headers, 'content-type': contentType }, payload });
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
}

/** A real image of the given size and format, drawn by sharp (a gradient, so encoders have work to do). */
export async function imageOf(width: number, height: number, format: 'png' | 'jpeg' | 'webp' = 'png'): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } } })
    .toFormat(format)
    .toBuffer();
}
