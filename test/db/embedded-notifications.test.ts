import { describe, expect, it } from 'vitest';
import { notificationScanner } from '../../src/db/embedded-notifications.ts';

/** A backend message: type byte, length (itself included), body. */
function message(type: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + body.length);
  out[0] = type.charCodeAt(0);
  new DataView(out.buffer).setInt32(1, body.length + 4);
  out.set(body, 5);
  return out;
}
const cString = (s: string) => new TextEncoder().encode(`${s}\0`);
const notification = (channel: string, payload: string) => message('A', new Uint8Array([0, 0, 0, 7, ...cString(channel), ...cString(payload)]));

/**
 * The socket server's answers reach the owner's scanner in whatever pieces PGlite wrote them: a
 * NOTIFY split anywhere, between rows and a ReadyForQuery, is read whole, and nothing else is taken for one.
 */
describe('the embedded owner reads NOTIFYs out of the socket answers', () => {
  it('finds each notification however the stream is cut, and only those', () => {
    const row = message('D', new Uint8Array([0, 1, 0, 0, 0, 1, 0x41]));
    const stream = new Uint8Array([
      ...message('C', cString('UPDATE 1')),
      ...notification('cms_changes', 'p:12'),
      ...row,
      ...notification('cms_changes', 'p:7'),
      ...message('Z', new Uint8Array([0x49])),
    ]);
    for (const size of [1, 2, 3, 7, stream.length]) {
      const heard: Array<[string, string]> = [];
      const scan = notificationScanner((channel, payload) => heard.push([channel, payload]));
      for (let i = 0; i < stream.length; i += size) scan(stream.subarray(i, i + size));
      expect(heard, `pieces of ${size}`).toEqual([
        ['cms_changes', 'p:12'],
        ['cms_changes', 'p:7'],
      ]);
    }
  });
});
