import type { ScheduleRow } from './store.ts';

/** A schedule as the API returns it (REST `data`, GraphQL `Schedule`, the `schedule.failed` body). */
export interface ScheduleResource {
  id: string;
  kind: ScheduleRow['kind'];
  action: ScheduleRow['action'];
  at: string;
  status: ScheduleRow['status'];
  uuid: string | null;
  locale: string | null;
  release_id: string | null;
  errors: Record<string, string[]> | null;
  created_at: string;
  updated_at: string;
  ran_at: string | null;
}

export function scheduleResource(row: ScheduleRow): ScheduleResource {
  return {
    id: row.id,
    kind: row.kind,
    action: row.action,
    at: row.run_at.toISOString(),
    status: row.status,
    uuid: row.entry_uuid,
    locale: row.locale,
    release_id: row.release_id,
    errors: row.errors,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    ran_at: row.ran_at?.toISOString() ?? null,
  };
}
