import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { world, type World } from '../helpers/world.ts';
import { multipartBody, multipartFiles, PNG } from './helpers.ts';

/**
 * A multipart body the parser cannot read is the client's mistake: 400 with a JSON message naming
 * what is wrong with it, never busboy's error as a 500, and nothing stored.
 */
describe('malformed multipart bodies on the upload routes', () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });
  afterAll(() => w?.close());

  const ROUTES = [
    { url: '/api/files', field: 'file' },
    { url: '/api/files/bulk/upload', field: 'files[]' },
  ] as const;

  /** A whole one-file body for `field`, then cut: the file part's bytes stop before its closing boundary. */
  const truncated = (field: string) => {
    const { payload, contentType } = multipartBody({ field, filename: 'cut.png', contentType: 'image/png', content: PNG });
    return { payload: payload.subarray(0, payload.length - 40), contentType };
  };

  const CASES: Array<{ name: string; body: (field: string) => { payload: Buffer; contentType: string }; problem: RegExp; status?: number }> = [
    {
      name: 'multipart/form-data without a boundary',
      body: (field) => ({ payload: multipartBody({ field, filename: 'a.txt', content: 'x' }).payload, contentType: 'multipart/form-data' }),
      problem: /boundary/i,
    },
    {
      name: 'an empty boundary parameter',
      body: (field) => ({ payload: multipartBody({ field, filename: 'a.txt', content: 'x' }).payload, contentType: 'multipart/form-data; boundary=' }),
      problem: /boundary/i,
    },
    {
      name: 'a boundary longer than RFC 2046 allows',
      body: (field) => ({ payload: multipartBody({ field, filename: 'a.txt', content: 'x' }).payload, contentType: `multipart/form-data; boundary=${'b'.repeat(300)}` }),
      problem: /boundary/i,
    },
    {
      name: 'a garbage body',
      body: () => ({ payload: Buffer.from('this is not a multipart body at all\r\n\r\n\x00\xff garbage'), contentType: 'multipart/form-data; boundary=xyz' }),
      problem: /multipart/i,
    },
    {
      name: 'a part with malformed headers',
      body: (field) => ({
        payload: Buffer.from(`--xyz\r\nContent-Disposition form-data name="${field}"\r\n${'X'.repeat(100)}\r\n\r\nabc\r\n--xyz--\r\n`),
        contentType: 'multipart/form-data; boundary=xyz',
      }),
      // busboy skips the header line it cannot read: a part without a name is no file part at all.
      problem: /required/i,
      status: 422,
    },
    { name: 'a truncated file part', body: truncated, problem: /ended|truncated|incomplete/i },
  ];

  for (const route of ROUTES) {
    describe(route.url, () => {
      it.each(CASES)('$name → 4xx naming the problem', async (c) => {
        const before = await w.t.database.prisma.asset.count();
        const { payload, contentType } = c.body(route.field);
        const res = await w.t.app.inject({ method: 'POST', url: route.url, headers: { ...w.p.headers, 'content-type': contentType }, payload });
        expect(res.statusCode, res.body).toBe(c.status ?? 400);
        const body = res.json();
        expect(body.message).toMatch(c.problem);
        expect(body.message).not.toMatch(/Server Error/);
        expect(await w.t.database.prisma.asset.count()).toBe(before);
      });
    });
  }

  it('a truncated second file of a bulk upload stores neither file', async () => {
    const { payload, contentType } = multipartFiles([
      { filename: 'one.png', contentType: 'image/png', content: PNG },
      { filename: 'two.png', contentType: 'image/png', content: PNG },
    ]);
    const before = await w.t.database.prisma.asset.count();
    const res = await w.t.app.inject({ method: 'POST', url: '/api/files/bulk/upload', headers: { ...w.p.headers, 'content-type': contentType }, payload: payload.subarray(0, payload.length - 30) });
    expect(res.statusCode, res.body).toBe(400);
    expect(await w.t.database.prisma.asset.count()).toBe(before);
  });

  it('a well-formed upload still succeeds on both routes', async () => {
    const one = multipartBody({ filename: 'ok.png', contentType: 'image/png', content: PNG });
    expect((await w.t.app.inject({ method: 'POST', url: '/api/files', headers: { ...w.p.headers, 'content-type': one.contentType }, payload: one.payload })).statusCode).toBe(201);
    const many = multipartFiles([{ filename: 'ok2.png', contentType: 'image/png', content: PNG }]);
    expect((await w.t.app.inject({ method: 'POST', url: '/api/files/bulk/upload', headers: { ...w.p.headers, 'content-type': many.contentType }, payload: many.payload })).statusCode).toBe(201);
  });
});
