import { builder } from '../common/builder.ts';
import { cancelSchedule, listEntrySchedules, rescheduleEntrySchedule, scheduleEntry } from '../../../schedules/operations.ts';
import { scheduleResource, type ScheduleResource } from '../../../schedules/serialize.ts';

/** Scheduled publishes of one entry: the GraphQL twin of src/rest/schedule-routes.ts (same operations, same errors). */

const ScheduleActionEnum = builder.enumType('ScheduleAction', {
  values: { PUBLISH: { value: 'publish' }, UNPUBLISH: { value: 'unpublish' } } as const,
});

const ScheduleStatusEnum = builder.enumType('ScheduleStatus', {
  values: {
    SCHEDULED: { value: 'scheduled' },
    RUNNING: { value: 'running' },
    DONE: { value: 'done' },
    FAILED: { value: 'failed' },
    CANCELLED: { value: 'cancelled' },
  } as const,
});

const ScheduleType = builder.objectRef<ScheduleResource>('Schedule').implement({
  description: 'A publish or unpublish due at a time. What a publish publishes is the draft as it is when it runs.',
  fields: (t) => ({
    id: t.exposeID('id'),
    action: t.field({ type: ScheduleActionEnum, resolve: (s) => s.action }),
    at: t.field({ type: 'DateTime', resolve: (s) => s.at }),
    status: t.field({ type: ScheduleStatusEnum, resolve: (s) => s.status }),
    uuid: t.string({ nullable: true, description: 'The entry scheduled.', resolve: (s) => s.uuid }),
    locale: t.string({ nullable: true, resolve: (s) => s.locale }),
    errors: t.field({ type: 'JSON', nullable: true, description: 'Why a failed schedule did not run, by key.', resolve: (s) => s.errors }),
    createdAt: t.field({ type: 'DateTime', resolve: (s) => s.created_at }),
    updatedAt: t.field({ type: 'DateTime', resolve: (s) => s.updated_at }),
    ranAt: t.field({ type: 'DateTime', nullable: true, resolve: (s) => s.ran_at }),
  }),
});

builder.queryFields((t) => ({
  entrySchedules: t.field({
    nullable: true,
    extensions: { ability: 'read' },
    type: [ScheduleType],
    description: "An entry's schedules, soonest first, whatever their status.",
    args: { collection: t.arg.string({ required: true }), uuid: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => (await listEntrySchedules(await context.auth(), args.collection, String(args.uuid))).map(scheduleResource),
  }),
}));

builder.mutationFields((t) => ({
  scheduleEntry: t.field({
    extensions: { ability: 'update' },
    nullable: true,
    type: ScheduleType,
    description: 'Publishes or unpublishes the entry at `at` (in the future). A publish publishes the draft as it is then.',
    args: {
      collection: t.arg.string({ required: true }),
      uuid: t.arg.id({ required: true }),
      action: t.arg({ type: ScheduleActionEnum, required: true }),
      at: t.arg({ type: 'DateTime', required: true }),
      locale: t.arg.string({ description: "Schedules the entry's translation in this locale." }),
    },
    resolve: async (_root, args, context) =>
      scheduleResource(
        await scheduleEntry(await context.auth(), args.collection, String(args.uuid), {
          action: args.action,
          at: args.at.toISOString(),
          ...(args.locale != null ? { locale: args.locale } : {}),
        }),
      ),
  }),
  rescheduleSchedule: t.field({
    extensions: { ability: 'update' },
    nullable: true,
    type: ScheduleType,
    description: 'Moves a pending schedule to `at` (in the future) (CONFLICT once it ran, failed or was cancelled).',
    args: { id: t.arg.id({ required: true }), at: t.arg({ type: 'DateTime', required: true }) },
    resolve: async (_root, args, context) => scheduleResource(await rescheduleEntrySchedule(await context.auth(), String(args.id), { at: args.at.toISOString() })),
  }),
  cancelSchedule: t.field({
    extensions: { ability: 'update' },
    nullable: true,
    type: ScheduleType,
    description: 'Cancels a pending schedule (CONFLICT once it ran, failed or was cancelled).',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => scheduleResource(await cancelSchedule(await context.auth(), String(args.id))),
  }),
}));
