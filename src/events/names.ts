/** The event names a webhook may subscribe to (docs/webhooks.md). */
export const CONTENT_EVENTS = [
  'content.created',
  'content.updated',
  'content.published',
  'content.unpublished',
  'content.deleted',
  'content.trashed',
  'content.restored',
] as const;
export const AUTH_EVENTS = [
  'auth.signup.success',
  'auth.login.success',
  'auth.logout.success',
  'auth.logout_all.success',
  'auth.email_verification.verified',
] as const;
/** A release published, failed to publish, or scheduled (docs/releases.md); not tied to one collection. */
export const RELEASE_EVENTS = ['release.published', 'release.failed', 'release.scheduled'] as const;
/**
 * A scheduled publish or unpublish of one entry that could not run (entry deleted, collection gone,
 * draft refused): the schedule is marked failed with its errors and nothing else changes.
 */
export const SCHEDULE_EVENTS = ['schedule.failed'] as const;
export const EVENT_NAMES = [...CONTENT_EVENTS, ...AUTH_EVENTS, ...RELEASE_EVENTS, ...SCHEDULE_EVENTS] as const;
export type EventName = (typeof EVENT_NAMES)[number];
export type ContentEventName = (typeof CONTENT_EVENTS)[number];
export type AuthEventName = (typeof AUTH_EVENTS)[number];
export type ReleaseEventName = (typeof RELEASE_EVENTS)[number];
export type ScheduleEventName = (typeof SCHEDULE_EVENTS)[number];

/** Test event sent by `POST /api/webhooks/{uuid}/ping`; not subscribable. */
export const PING_EVENT = 'webhook.ping';
