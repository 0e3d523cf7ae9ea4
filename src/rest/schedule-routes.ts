import { z } from 'zod';
import { ref } from './openapi/components.ts';
import { defineRoutes } from './route.ts';
import { cancelSchedule, listEntrySchedules, rescheduleEntrySchedule, scheduleEntry } from '../schedules/operations.ts';
import { scheduleResource } from '../schedules/serialize.ts';

const tags = ['schedules'];

const rescheduleBody = z.object({
  at: z.string().describe('The new time, as an ISO 8601 date and time with an offset, in the future'),
});

const scheduleBody = z.object({
  action: z.enum(['publish', 'unpublish']),
  at: z.string().describe('When, as an ISO 8601 date and time with an offset, in the future'),
  locale: z.string().optional().describe("Schedule the entry's translation in this locale"),
});

/**
 * Scheduled publishes and unpublishes of one entry (docs/schedules.md). The entry routes sit one
 * segment deeper than `/api/:collection/:uuid`; rescheduling and cancelling have a fixed prefix, registered before the
 * `/api/:collection/:uuid` catch-all. `schedules` is a reserved slug that older projects may use as a
 * collection: for them the collection's routes answer under /api/schedules (src/rest/reserved-slugs.ts).
 */
export const scheduleRoutes = defineRoutes([
  {
    method: 'POST',
    url: '/api/:collection/:uuid/schedule',
    successStatus: 201,
    response: { schema: ref('ScheduleData') },
    ability: 'update',
    body: scheduleBody,
    summary: 'Schedule a publish or unpublish of the entry ({ action, at, locale? }); the draft is published as it is at that time',
    tags,
    handler: async (ctx, { params, body }) => ({ status: 201, body: { data: scheduleResource(await scheduleEntry(ctx, params.collection, params.uuid, body)) } }),
  },
  {
    method: 'GET',
    url: '/api/:collection/:uuid/schedule',
    successStatus: 200,
    response: { schema: ref('ScheduleList') },
    ability: 'read',
    summary: "The entry's schedules, soonest first, whatever their status",
    tags,
    handler: async (ctx, { params }) => ({ body: { data: (await listEntrySchedules(ctx, params.collection, params.uuid)).map(scheduleResource) } }),
  },
  {
    method: 'PATCH',
    url: '/api/schedules/:id',
    reservedSlug: 'schedules',
    successStatus: 200,
    response: { schema: ref('ScheduleData') },
    ability: 'update',
    body: rescheduleBody,
    summary: 'Move a pending schedule to another time ({ at }; 409 once it ran, failed or was cancelled)',
    tags,
    handler: async (ctx, { params, body }) => ({ body: { data: scheduleResource(await rescheduleEntrySchedule(ctx, params.id, body)) } }),
  },
  {
    method: 'DELETE',
    url: '/api/schedules/:id',
    reservedSlug: 'schedules',
    successStatus: 200,
    response: { schema: ref('ScheduleData') },
    ability: 'update',
    summary: 'Cancel a pending schedule (409 once it ran, failed or was cancelled)',
    tags,
    handler: async (ctx, { params }) => ({ body: { data: scheduleResource(await cancelSchedule(ctx, params.id)) } }),
  },
]);
