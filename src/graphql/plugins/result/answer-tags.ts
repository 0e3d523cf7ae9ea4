import type { Ctx } from '../../../context.ts';

/**
 * Per request (the server context Yoga was handed): the delivery-token context of a published read,
 * and the CDN tags of an answer the read cache gave (src/edge/cdn/headers.ts). Shared by the two
 * result plugins: the read cache knows a hit's stored tags, the conditional-GET plugin writes headers.
 */
const deliveryCtx = new WeakMap<object, Ctx>();
const storedTags = new WeakMap<object, readonly string[]>();

export const rememberDelivery = (req: object, ctx: Ctx): void => void deliveryCtx.set(req, ctx);
export const deliveryOf = (req: object): Ctx | undefined => deliveryCtx.get(req);
export const rememberTags = (req: object, tags: readonly string[]): void => void storedTags.set(req, tags);
export const storedTagsOf = (req: object): readonly string[] | undefined => storedTags.get(req);
