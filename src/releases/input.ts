import { z } from 'zod';
import { ErrorBag } from '../errors.ts';
import { firstString, parsePositiveInt } from '../text.ts';
import { ITEM_ACTIONS, MAX_ITEMS_PER_CALL, RELEASE_STATUSES, type ReleaseStatus } from './model.ts';

/** Request bodies of the release routes, checked at the edge; problems are a 422 naming the key. */

export const createBody = z.object({
  title: z.string({ error: 'The title field is required.' }).trim().min(1, 'The title field is required.').max(255, 'The title field must not be greater than 255 characters.'),
  description: z.string().max(10_000, 'The description field must not be greater than 10000 characters.').nullable().optional(),
});

export const updateBody = z.object({
  title: createBody.shape.title.optional(),
  description: createBody.shape.description,
});

export const itemInput = z.object({
  collection: z.string({ error: 'The collection field is required.' }).min(1, 'The collection field is required.'),
  uuid: z.uuid({ error: 'The uuid field must be a valid UUID.' }),
  action: z.enum(ITEM_ACTIONS, { error: 'The action field must be publish or unpublish.' }),
  locale: z.string().trim().toLowerCase().nullable().optional(),
});

export const itemsBody = z.object({
  items: z
    .array(itemInput, { error: 'The items field must be an array of items.' })
    .min(1, 'The items field must have at least 1 item.')
    .max(MAX_ITEMS_PER_CALL, `The items field must not have more than ${MAX_ITEMS_PER_CALL} items.`),
});



export interface ReleaseListQuery {
  status?: ReleaseStatus;
  page: number;
  perPage: number;
}

/** `?status=&paginate=&page=` of GET /api/releases; page size 25 by default, at most 100. */
export function parseListQuery(q: Record<string, unknown>): ReleaseListQuery {
  const bag = new ErrorBag();
  const status = firstString(q.status);
  if (status !== undefined && !(RELEASE_STATUSES as readonly string[]).includes(status)) {
    bag.add('status', `The selected status is invalid: use one of ${RELEASE_STATUSES.join(', ')}.`);
  }
  const perPage = Math.min(parsePositiveInt(bag, 'paginate', q.paginate) ?? 25, 100);
  const page = parsePositiveInt(bag, 'page', q.page) ?? 1;
  bag.throwIfAny();
  return { status: status as ReleaseStatus | undefined, page, perPage };
}
