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
