import type { Tx } from '../db/client.ts';
import type { Ctx } from '../context.ts';
import type { ContentEventName } from './events.ts';

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
}
