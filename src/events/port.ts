/**
 * The port between the writers of events and their readers. Writers (entries, users) record events
 * in the outbox (./outbox.ts) inside their own transaction, so an event exists if and only if its
 * change committed. Readers (webhook delivery in src/delivery, live subscriptions in src/live) consume
 * them after commit, each at its own pace, in outbox id order:
 * - woken by NOTIFY on OUTBOX_CHANNEL, the hint a writer sends after its commit (src/db/change-hints.ts;
 *   not inside the transaction, where NOTIFY takes a cluster-wide lock at commit), and by a poll, so a
 *   lost hint or a writer that sends none (the CLI, plain SQL) delays an event and never loses it;
 * - or, inside this process, through the OutboxReaders of Services (embedded PGlite has no second
 *   connection to LISTEN on);
 * - then reading the rows through ./feed.ts (live) or claiming them for dispatch through ./outbox.ts
 *   (delivery, which marks them dispatched).
 * The events module imports no reader: readers are registered by the composition root.
 */

/** The channel outbox readers LISTEN on for hints (the name predates the live readers). */
export const OUTBOX_CHANNEL = 'cms_webhook_outbox';

/** A reader of committed events that wants to hear of this process's outbox writes at once. */
export interface OutboxReader {
  /** Called by a writer after its statement inserted outbox rows (inside the transaction). */
  outboxWritten(): void;
}

declare module '../context.ts' {
  interface Services {
    /** Readers told of this process's outbox writes (src/services.ts registers webhook delivery). */
    outboxReaders?: readonly OutboxReader[];
  }
}
