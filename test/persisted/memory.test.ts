import { describe, expect, it } from 'vitest';
import type { Change } from '../../src/db/change-feed.ts';
import { parseChange } from '../../src/db/change-feed.ts';
import { TrustedDocumentMemory } from '../../src/persisted/memory.ts';

/** A feed whose liveness, session and notifications the test drives. */
function fakeFeed() {
  const subscribers = new Set<(c: Change) => void>();
  return {
    live: true,
    session: 1,
    subscribe(fn: (c: Change) => void) {
      subscribers.add(fn);
      return () => subscribers.delete(fn);
    },
    emit(c: Change) {
      for (const fn of subscribers) fn(c);
    },
  };
}

const HASH = 'a'.repeat(64);

/** The rules that keep a replica's memory of manifests true (src/persisted/memory.ts). */
describe('trusted-document memory', () => {
  it('reads the trusted-documents notification as its own kind', () => {
    expect(parseChange('t:42')).toEqual({ kind: 'trusted-documents', projectId: 42 });
    expect(parseChange('p:42')).toEqual({ kind: 'project', projectId: 42 });
  });

  it('drops a project’s flag and texts on its notification, and only that project’s', () => {
    const feed = fakeFeed();
    const m = new TrustedDocumentMemory(feed, 3_600_000);
    for (const id of [1, 2]) {
      const t = m.ticket();
      m.keepEnforced(t, id, true);
      m.keepText(t, id, HASH, 'query');
    }
    feed.emit({ kind: 'project', projectId: 1 });
    expect(m.enforced(1)).toBe(true);
    feed.emit({ kind: 'trusted-documents', projectId: 1 });
    expect(m.enforced(1)).toBeUndefined();
    expect(m.text(1, HASH)).toBeUndefined();
    expect(m.enforced(2)).toBe(true);
    expect(m.text(2, HASH)).toBe('query');
    feed.emit({ kind: 'all' });
    expect(m.enforced(2)).toBeUndefined();
  });

  it('answers nothing from memory while the feed is down, and keeps nothing read across a reconnect', () => {
    const feed = fakeFeed();
    const m = new TrustedDocumentMemory(feed, 3_600_000);
    m.keepEnforced(m.ticket(), 1, false);
    feed.live = false;
    expect(m.enforced(1)).toBeUndefined();
    const during = m.ticket();
    m.keepText(during, 1, HASH, null);
    feed.live = true;
    feed.session++;
    expect(m.text(1, HASH)).toBeUndefined();
    const before = m.ticket();
    feed.session++;
    m.keepEnforced(before, 3, true);
    expect(m.enforced(3)).toBeUndefined();
  });

  it('does not keep an answer read while a notification for its project arrived', () => {
    const feed = fakeFeed();
    const m = new TrustedDocumentMemory(feed, 3_600_000);
    const ticket = m.ticket();
    feed.emit({ kind: 'trusted-documents', projectId: 1 });
    m.keepEnforced(ticket, 1, false);
    m.keepText(ticket, 1, HASH, null);
    m.keepEnforced(ticket, 2, false);
    expect(m.enforced(1)).toBeUndefined();
    expect(m.text(1, HASH)).toBeUndefined();
    expect(m.enforced(2)).toBe(false);
  });

  it('trusts no entry longer than its bound', () => {
    const feed = fakeFeed();
    let now = 1_000;
    const m = new TrustedDocumentMemory(feed, 1_000, () => now);
    m.keepEnforced(m.ticket(), 1, true);
    now += 999;
    expect(m.enforced(1)).toBe(true);
    now += 2;
    expect(m.enforced(1)).toBeUndefined();
  });
});
