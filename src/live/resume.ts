import type { Database } from '../db/client.ts';
import type { EntryResource } from '../entries/types.ts';
import { collectionRowsBetween, isRecentEvent, releaseRowsBetween } from '../events/feed.ts';
import type { LiveGroup } from './group.ts';
import { toLiveChange, type LiveChange } from './stream.ts';
import type { RecentChanges } from './recent.ts';
import type { LiveFilter, Rendition } from './subscription.ts';

/**
 * Resume (Last-Event-ID): the changes of a subscriber's collection (or its project's release events) after the id it last saw, up to
 * the stream's cursor when it rejoined, or 'reset' when that id is outside the window or the backlog
 * is too long. The anchor is always checked in the outbox; the rows come from `recent` (what the stream
 * released lately) when it holds them all, else from the outbox. Rendered through the subscriber's
 * group (src/live/hub.ts).
 */
export async function readBacklog(
  database: Database,
  limits: { resumeWindowSeconds: number; maxBacklog: number },
  filter: LiveFilter,
  after: number,
  upTo: number,
  recent?: RecentChanges<LiveChange>,
): Promise<LiveChange[] | 'reset'> {
  if (after > upTo) return 'reset';
  // The id the client saw must still be in the outbox and young enough: rows past the window may be
  // deleted by the outbox retention (24 h after dispatch), so a gap after it could not be told apart.
  if (!(await isRecentEvent(database, after, limits.resumeWindowSeconds))) return 'reset';
  // From memory when the stream still holds every row after `after` (src/live/recent.ts).
  const held = recent?.between(after, upTo, filter.projectId, filter.collectionId, limits.maxBacklog + 1);
  if (held) {
    if (held.length > limits.maxBacklog) return 'reset';
    return held.filter((c): c is LiveChange => c !== null && (!filter.events || filter.events.has(c.event)));
  }
  const q = { after, upTo, projectId: filter.projectId, limit: limits.maxBacklog + 1 };
  const rows = filter.collectionId === null ? await releaseRowsBetween<EntryResource>(database, q) : await collectionRowsBetween<EntryResource>(database, { ...q, collectionId: filter.collectionId });
  if (rows.length > limits.maxBacklog) return 'reset';
  const changes: LiveChange[] = [];
  for (const r of rows) {
    const c = toLiveChange(r);
    if (c && (!filter.events || filter.events.has(c.event))) changes.push(c);
  }
  return changes;
}

/**
 * A resumed member's backlog as renditions of its group, in outbox order. Leave events come when the
 * entry entered within the backlog, or when the group had shown it at or before the resume point
 * (the client, resuming this very shape, saw it then).
 */
export async function replayOf(group: LiveGroup, backlog: LiveChange[], resumeFrom: number): Promise<Rendition[]> {
  const rendered = await Promise.all(backlog.map((c) => group.render(c)));
  // Live deliveries of these changes (which note `lastShown` on leaves) come first.
  await group.settled();
  const entered = new Set<string>();
  const out: Rendition[] = [];
  for (const r of rendered) {
    if (!r) continue;
    if (r.leaves && !r.toAll) {
      const sawIt = entered.delete(r.leaves) || (r.lastShown !== undefined && r.lastShown <= resumeFrom);
      if (!sawIt) continue;
    } else if (r.leaves) entered.delete(r.leaves);
    if (r.shows) entered.add(r.shows);
    out.push(r);
  }
  return out;
}

/** An SSE id this server sent: a positive outbox id; null for anything else. */
export function parseEventId(raw: string): number | null {
  const s = raw.trim();
  if (!/^\d{1,15}$/.test(s)) return null;
  const n = Number(s);
  return n > 0 ? n : null;
}
