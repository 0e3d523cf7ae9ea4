import { createRequire } from 'node:module';
import { print, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Ctx } from '../../context.ts';
import type { LiveRenderer } from '../../live/group.ts';
import type { LiveChange, OutboxChange } from '../../live/stream.ts';
import type { LiveSubscription, Rendition } from '../../live/subscription.ts';
import type { GraphQLContext } from '../context.ts';
import { maskError } from '../plugins/result/mask-error.ts';

/**
 * graphql's CommonJS build, the one the schema's types come from (Pothos and Yoga load it by Node's
 * resolution). Under vitest an `import` from this file resolves to the ESM build instead, whose
 * `instanceof` checks refuse the schema; in production both are the same module.
 */
const { execute, GraphQLError } = createRequire(import.meta.url)('graphql') as typeof import('graphql');

/**
 * Live subscriptions run their selection once per group of identical subscribers (src/live/group.ts),
 * not once per subscriber as `subscribe` would (it executes the document for every event of every
 * subscriber). The subscribe step still runs as usual (Yoga's parse, validation, limits, then the
 * subscribe resolver with its authentication and caps), but its per-event mapping is never read:
 * the member's own stream of the group's ready ExecutionResults is returned in its place. Both SSE
 * modes go through envelop's `subscribe`, so both get this.
 */
const argsOf = new WeakMap<object, ExecutionArgs>();
const memberOf = new WeakMap<object, LiveSubscription>();

export function useLiveSubscribe(): Plugin {
  return {
    onSubscribe({ subscribeFn, setSubscribeFn }) {
      setSubscribeFn(async (args: ExecutionArgs) => {
        const context = args.contextValue;
        if (context && typeof context === 'object') argsOf.set(context, args);
        const result = await subscribeFn(args);
        const sub = context && typeof context === 'object' ? memberOf.get(context) : undefined;
        // `result` maps the source through an execution per event, lazily: left unread, it runs none.
        return sub && result && typeof result === 'object' && Symbol.asyncIterator in result ? resultsOf(sub) : result;
      });
    },
  };
}

/** Called by a subscribe resolver with the member it made; returns what the resolver returns. */
export function liveSource(c: GraphQLContext, sub: LiveSubscription): AsyncIterable<unknown> {
  memberOf.set(c, sub);
  return { [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<unknown>>(() => {}) }) };
}

/** What a change shows a group, before the selection runs on it. */
export interface LivePayload<T> {
  payload: T;
  shows?: string;
  leaves?: string;
  toAll?: boolean;
}

/**
 * Which schema an operation was validated against, by content rather than by object: a project's
 * typed schema for one revision can be built more than once (evicted from the cache, rebuilt), and
 * subscribers of the same revision must still share a group. Project and revision are in the key
 * beside it; this tells the core schema from a typed one.
 */
const schemaKinds = new WeakMap<GraphQLSchema, string>();
const schemaKindOf = (schema: GraphQLSchema): string => {
  let kind = schemaKinds.get(schema);
  if (kind === undefined) schemaKinds.set(schema, (kind = Object.keys(schema.getSubscriptionType()?.getFields() ?? {}).sort().join(',')));
  return kind;
};
const documentTexts = new WeakMap<DocumentNode, string>();

function argsFor(c: GraphQLContext): ExecutionArgs {
  const args = argsOf.get(c);
  if (!args) throw new Error('live subscription outside useLiveSubscribe');
  return args;
}

/**
 * The group key of a subscription: every input its events depend on. The operation (document text,
 * variables, operation name) fixes the field, its arguments (collection, state, where, events) and the
 * selection; the schema (core or the project's typed one) and the project's schema revision fix the
 * types and the field visibility; the token's abilities and scope are all else a resolver can read of the caller.
 */
export function shapeKeyOf(c: GraphQLContext, ctx: Ctx): string {
  const args = argsFor(c);
  let text = documentTexts.get(args.document);
  if (text === undefined) documentTexts.set(args.document, (text = print(args.document)));
  // A scoped token's scope decides which collections and fields it sees: its digest joins the key.
  const who = ctx.actor.kind === 'token' ? `token:${[...ctx.actor.abilities].sort().join(',')}:${ctx.scope?.digest ?? '-'}` : 'system';
  return [schemaKindOf(args.schema), ctx.project.id, ctx.project.schemaRevision, who, args.operationName ?? '', JSON.stringify(args.variableValues ?? null), text].join('\u0000');
}

/** Errors as the client sees them: internal extensions (`http`) stay on the server, as Yoga does. */
export function stringifyResult(result: ExecutionResult): string {
  return JSON.stringify(result, (key, value) => (key === 'http' ? undefined : value));
}

/**
 * A renderer for one member: `toPayload` reads what the change shows (with a fresh memo, so no
 * DataLoader answers from an earlier change), then the member's own operation runs on it with the
 * member's own context, and the result is masked and serialized once.
 */
export function liveRenderer<T, C extends LiveChange = OutboxChange>(c: GraphQLContext, toPayload: (change: C, ctx: Ctx) => Promise<LivePayload<T> | null>): LiveRenderer<C> {
  const args = argsFor(c);
  const { schema, document, variableValues, operationName } = args;
  return async (change: C): Promise<Rendition | null> => {
    const ctx: Ctx = { ...(await c.auth()), memo: new Map() };
    const p = await toPayload(change, ctx);
    if (!p) return null;
    const contextValue: GraphQLContext = { ...c, auth: () => Promise.resolve(ctx) };
    let result = await execute({ schema, document, rootValue: p.payload, contextValue, variableValues, operationName });
    if (result.errors?.length) result = { ...result, errors: result.errors.map((e) => maskError(e, 'Unexpected error.')) };
    return { id: change.id, value: result, json: stringifyResult(result), shows: p.shows, leaves: p.leaves, toAll: p.toAll };
  };
}

/**
 * The source stream a subscribe resolver returns: the member's renditions as ExecutionResults (pulled
 * by graphql-sse in the single-connection mode; the distinct mode's writer takes the member itself
 * and pushes, src/graphql/subscriptions/sse.ts). `return()` ends the member at once, even while
 * `next()` waits, which a suspended async generator could not do.
 */
export function resultsOf(sub: LiveSubscription): AsyncIterableIterator<ExecutionResult> {
  const source = sub[Symbol.asyncIterator]();
  let told = false;
  const iterator: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      const r = await source.next();
      if (!r.done) return { done: false, value: r.value.value as ExecutionResult };
      // How the server ended it, as the last result (the distinct mode's writer says it in SSE terms).
      const end = sub.ended;
      if (told || !end || end.kind === 'closed') return { done: true, value: undefined };
      told = true;
      const error =
        end.kind === 'reset'
          ? new GraphQLError(end.reason, { extensions: { code: 'RESET' } })
          : new GraphQLError(end.message, { extensions: { code: end.code, status: end.code === 'FORBIDDEN' ? 403 : 401 } });
      return { done: false, value: { errors: [error] } };
    },
    async return() {
      await source.return?.();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

/** The change payloads' ordering fields (docs/graphql.md, "Subscriptions"; as the webhook body's). */
export const REVISION_DOC = "The entry's revision after this change: moved by every write of the entry, so it orders one entry's events (DELETED: one past the deleted row's). Null on events recorded before revisions were.";
export const UPDATED_AT_DOC = "The entry's updated_at as this change's commit left it (DELETED: when it was deleted).";
