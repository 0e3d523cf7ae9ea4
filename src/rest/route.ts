import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Ability } from '../abilities.ts';
import type { WholeProjectThing } from '../admin-scope.ts';
import type { Ctx } from '../context.ts';
import type { RateBucket } from '../edge/rate-limit.ts';
import type { ReadCache } from '../edge/read-cache/store.ts';
import type { KnownRestReads } from '../edge/read-cache/known-rest-reads.ts';
import type { LocalHeaders } from '../edge/local-headers.ts';
import type { RouteResponse } from './openapi/components.ts';
import type { EndUserCtx } from '../users/context.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type { RateBucket };

export interface RestInput {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  headers: FastifyRequest['headers'];
  raw: FastifyRequest;
  reply: FastifyReply;
  /** Authenticates the request (project-id + bearer) for public routes that answer more to a signed-in caller. */
  admit?: () => Promise<Ctx>;
  /** The first start's headers when this request may have them (src/edge/local-headers.ts), for the pages that offer them. */
  localHeaders?: () => Promise<LocalHeaders | undefined>;
  /** The published-read cache of this process (src/edge/read-cache/store.ts); absent when switched off. */
  readCache?: ReadCache;
  /** Where published reads note their URLs for the early answer (src/http/cached-reads.ts); with `readCache`. */
  knownReads?: KnownRestReads;
}

export interface RestResult {
  status?: number;
  body?: unknown;
  /** A body already serialised to JSON (cached reads); sent as is instead of `body`. */
  json?: string;
  headers?: Record<string, string>;
}

/**
 * One row of the REST route table. `ability` is what the operation behind the route enforces; it is
 * declared here so the authorization-matrix test and the OpenAPI document come from the same table
 * the router is built from. `auth: false` is for the few public routes (health, asset files);
 * `auth: 'enduser'` for the end-user auth routes (/api/auth/*): the project comes from its header, no
 * CMS token is taken, and the operation parses its own body (`body` then only documents it).
 */
export interface RouteDef {
  method: HttpMethod;
  url: string;
  ability: Ability | null;
  auth?: boolean | 'enduser';
  bucket?: RateBucket;
  /**
   * What the route administers when that belongs to the whole project (plural, e.g. "Tokens"): a
   * token limited to collections or fields is refused (403, src/admin-scope.ts). Checked with the
   * ability, before any body is validated; the operation checks again for the other surfaces.
   */
  wholeProject?: WholeProjectThing;
  summary: string;
  tags?: string[];
  body?: z.ZodType;
  /** Optional: query parameters, for the OpenAPI document only (handlers parse their own query). */
  query?: z.ZodType;
  /** The status the handler answers on success (the OpenAPI document's one success response). */
  successStatus: number;
  /** The success body's schema for the OpenAPI document (src/rest/openapi/components.ts). */
  response: RouteResponse;
  handler: (ctx: Ctx, input: RestInput) => Promise<RestResult>;
  /**
   * The reserved collection slug this fixed route's path starts with, when projects may have a
   * collection of that slug from before it was reserved: for them the collection's routes answer
   * instead (src/rest/reserved-slugs.ts).
   */
  reservedSlug?: string;
  /** Public routes receive no Ctx. */
  publicHandler?: (input: RestInput) => Promise<RestResult>;
  /** End-user routes receive the project's end-user context instead of a Ctx. */
  endUserHandler?: (ctx: EndUserCtx, input: RestInput) => Promise<RestResult>;
}

export const defineRoutes = (routes: RouteDef[]): RouteDef[] => routes;
