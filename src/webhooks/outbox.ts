import type { Tx } from '../db/client.ts';
import type { Ctx } from '../context.ts';
import type { AuthEventName, ContentEventName } from './events.ts';
import { OUTBOX_CHANNEL } from './dispatcher.ts';

export interface ContentEventInput {
  event: ContentEventName;
  collection: { id: number; uuid: string; slug: string };
  entryUuid: string;
  locale: string;
  /**
   * The entry resource as the API returns it, captured at the moment of the change so a delivery
   * sends what was true then. Omitted for `content.deleted` (deliveries carry ids only).
   */
  entry?: unknown;
}

/**
 * Records a content event in the outbox, inside the caller's transaction: the event exists if and
 * only if the change committed. The dispatcher (src/webhooks) turns outbox rows into deliveries.
 */
export async function emitContentEvent(tx: Tx, ctx: Ctx, input: ContentEventInput): Promise<void> {
  await emitContentEvents(tx, ctx, [input]);
}

/** Many events in one statement (bulk operations). */
export async function emitContentEvents(tx: Tx, ctx: Ctx, inputs: ContentEventInput[]): Promise<void> {
  if (inputs.length === 0) return;
  await tx.outboxEvent.createMany({
    data: inputs.map((i) => ({
      projectId: ctx.project.id,
      event: i.event,
      source: ctx.source,
      collectionId: i.collection.id,
      entryUuid: i.entryUuid,
      payload: {
        collection: i.collection,
        entry_uuid: i.entryUuid,
        locale: i.locale,
        ...(i.event !== 'content.deleted' && i.entry !== undefined ? { content_entry: i.entry } : {}),
      } as object,
    })),
  });
  await announce(tx, ctx);
}

/**
 * An `auth.*` event (project end-user flows). `data` becomes the body's event-specific fields, e.g.
 * `{ user: { uuid, email } }`. Whatever the source, auth events only reach webhooks whose sources
 * include `api` (spec §6).
 */
export async function emitAuthEvent(tx: Tx, ctx: Ctx, event: AuthEventName, data: Record<string, unknown>): Promise<void> {
  await tx.outboxEvent.create({
    data: { projectId: ctx.project.id, event, source: ctx.source, collectionId: null, entryUuid: null, payload: data as object },
  });
  await announce(tx, ctx);
}

/**
 * NOTIFY inside the transaction is delivered when it commits (and dropped if it rolls back), so
 * dispatchers on every replica wake exactly when the rows become visible.
 */
async function announce(tx: Tx, ctx: Ctx): Promise<void> {
  await tx.$executeRawUnsafe(`SELECT pg_notify('${OUTBOX_CHANNEL}', '')`);
  ctx.services.webhooks?.outboxWritten();
}
