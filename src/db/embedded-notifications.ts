import type { ListenHandlers, PgListener } from './listener.ts';
import { CHANGES_CHANNEL } from './change-feed.ts';

/**
 * The channels an embedded database listens on from its start: its one session is every
 * connection's, so a LISTEN issued later by whoever asks could land inside another connection's
 * transaction (and be rolled back with it).
 */
export const EMBEDDED_CHANNELS: readonly string[] = [CHANGES_CHANNEL];

/** NotificationResponse: the one backend message this reads. */
const NOTIFICATION = 0x41;

/**
 * Reads the NOTIFYs out of a stream of PostgreSQL backend messages as it is written, in chunks that
 * may split a message anywhere; every other message is skipped by its length.
 */
export function notificationScanner(deliver: (channel: string, payload: string) => void): (chunk: Uint8Array) => void {
  const head = new Uint8Array(5);
  let headLength = 0;
  let skip = 0;
  let body: Uint8Array | undefined;
  let bodyLength = 0;
  const decoder = new TextDecoder();
  const cString = (bytes: Uint8Array, from: number): [string, number] => {
    const end = bytes.indexOf(0, from);
    const to = end < 0 ? bytes.length : end;
    return [decoder.decode(bytes.subarray(from, to)), to + 1];
  };
  return (chunk) => {
    let i = 0;
    while (i < chunk.length) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - i);
        skip -= n;
        i += n;
      } else if (body) {
        const n = Math.min(body.length - bodyLength, chunk.length - i);
        body.set(chunk.subarray(i, i + n), bodyLength);
        bodyLength += n;
        i += n;
        if (bodyLength === body.length) {
          // The sending backend's pid (4 bytes), then the channel and the payload.
          const [channel, next] = cString(body, 4);
          deliver(channel, cString(body, next)[0]);
          body = undefined;
        }
      } else {
        head[headLength++] = chunk[i++];
        if (headLength < head.length) continue;
        headLength = 0;
        const length = new DataView(head.buffer).getInt32(1) - 4;
        if (head[0] === NOTIFICATION && length > 0) {
          body = new Uint8Array(length);
          bodyLength = 0;
        } else skip = Math.max(length, 0);
      }
    }
  };
}

/**
 * The listeners of one embedded database, fed with every NOTIFY its session receives: on the
 * owner's socket server that is every commit of every connection and process, since they all share
 * the one session (a LISTEN connection of their own would hear only its own statements' NOTIFYs).
 */
export class EmbeddedNotifications {
  private readonly handlers = new Map<string, Set<ListenHandlers>>();

  deliver = (channel: string, payload: string): void => {
    for (const h of this.handlers.get(channel) ?? []) h.notify(payload);
  };

  /** A listener in the shape of src/db/listener.ts's: live from the start, never lost (the session is this process's). */
  listen = (channel: string, handlers: ListenHandlers): PgListener => {
    if (!EMBEDDED_CHANNELS.includes(channel)) throw new Error(`embedded database does not listen on ${channel}`);
    let set = this.handlers.get(channel);
    if (!set) this.handlers.set(channel, (set = new Set()));
    set.add(handlers);
    queueMicrotask(() => handlers.live?.());
    return {
      live: true,
      session: 1,
      ready: Promise.resolve(),
      close: async () => {
        set.delete(handlers);
      },
    };
  };
}
