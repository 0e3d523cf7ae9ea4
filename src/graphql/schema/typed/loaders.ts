import DataLoader from 'dataloader';
import { memo, type Ctx } from '../../../context.ts';
import { contentLoaders } from '../../../entries/reads/loaders.ts';
import { serializeEntries } from '../../../entries/reads/serialize.ts';
import type { EntryResource, ReadState } from '../../../entries/types.ts';
import type { ReadRow } from '../../../entries/reads/read-rows.ts';
import { fallbackFor, resolveTargetsAlongChain } from '../../../entries/reads/fallback.ts';

/**
 * How a relation field links its target: draft reads link drafts; published reads link the
 * published copy, or (field option `includeDraft`) the draft when there is none. Same rule as the
 * REST serializer's first level (src/entries/reads/serialize.ts `nestedData`).
 */
export type LinkMode = 'draft' | 'published' | 'published-or-draft';

export function linkMode(state: ReadState, includeDraft: boolean | undefined): LinkMode {
  if (state === 'draft') return 'draft';
  return includeDraft ? 'published-or-draft' : 'published';
}

function readStateOf(row: ReadRow, mode: LinkMode): ReadState | null {
  if (mode === 'draft') return 'draft';
  if (row.publishedVersionId !== null) return 'published';
  return mode === 'published-or-draft' ? 'draft' : null;
}

const keyOf = (collectionId: number, mode: LinkMode, uuid: string, requestedLocale = '') => `${collectionId}|${mode}|${uuid.toLowerCase()}|${requestedLocale}`;

/**
 * Related entries below the first level (the content serializer hydrates the first level itself
 * and leaves UUIDs deeper down), as entry resources, batched per request: every entry a query level
 * links costs one batch of loads (targets, their collections, their own references and assets)
 * however many entries link them. Targets outside the field's collection, soft-deleted targets and
 * targets without the copy the read needs resolve to null.
 */
export function linkedEntryLoader(ctx: Ctx): DataLoader<string, EntryResource | null> {
  return memo(ctx, 'graphql:typed:linked', () =>
    new DataLoader<string, EntryResource | null>(async (keys) => {
      const parsed = keys.map((k) => {
        const [collectionId, mode, uuid, requested] = k.split('|');
        return { collectionId: Number(collectionId), mode: mode as LinkMode, uuid, requested: requested || undefined };
      });
      const loaders = contentLoaders(ctx);
      const loaded = await loaders.entryByUuid.loadMany(parsed.map((p) => p.uuid));
      const rows: Array<ReadRow | null | Error> = [...loaded];
      // Fallback reads: each target replaced by its translation along the asking read's chain.
      for (const requested of new Set(parsed.map((p) => p.requested))) {
        if (requested === undefined) continue;
        for (const state of ['draft', 'published'] as const) {
          const targets = new Map<string, ReadRow>();
          parsed.forEach((p, i) => {
            const row = rows[i];
            if (p.requested === requested && (p.mode === 'draft') === (state === 'draft') && row && !(row instanceof Error)) targets.set(String(i), row);
          });
          if (targets.size === 0) continue;
          await resolveTargetsAlongChain(ctx, targets, fallbackFor(ctx, requested), state);
          for (const [i, row] of targets) rows[Number(i)] = row;
        }
      }
      const groups = new Map<string, { collectionId: number; state: ReadState; requested?: string; rows: Map<number, ReadRow> }>();
      const wanted = parsed.map((p, i) => {
        const row = rows[i];
        if (!row || row instanceof Error || row.collectionId !== p.collectionId) return null;
        const state = readStateOf(row, p.mode);
        if (!state) return null;
        const g = `${row.collectionId}|${state}|${p.requested ?? ''}`;
        if (!groups.has(g)) groups.set(g, { collectionId: row.collectionId, state, requested: p.requested, rows: new Map() });
        groups.get(g)!.rows.set(row.id, row);
        return { g, id: row.id };
      });
      const serialized = new Map<string, Map<number, EntryResource>>();
      await Promise.all(
        [...groups].map(async ([g, group]) => {
          const schema = await loaders.collectionById.load(group.collectionId);
          if (!schema) return;
          const list = [...group.rows.values()];
          const fallback = group.requested === undefined ? undefined : fallbackFor(ctx, group.requested);
          const resources = await serializeEntries(ctx, schema, list, { state: group.state, timestamps: true, fallback });
          serialized.set(g, new Map(list.map((row, i) => [row.id, resources[i]])));
        }),
      );
      return wanted.map((w) => (w ? (serialized.get(w.g)?.get(w.id) ?? null) : null));
    }),
  );
}

export function loadLinked(ctx: Ctx, collectionId: number, mode: LinkMode, uuids: string[], requestedLocale?: string): Promise<Array<EntryResource | null | Error>> {
  return linkedEntryLoader(ctx).loadMany(uuids.map((u) => keyOf(collectionId, mode, u, requestedLocale)));
}
