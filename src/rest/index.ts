import type { RouteDef } from './route.ts';
import { projectRoutes } from './project-routes.ts';
import { collectionRoutes } from './collection-routes.ts';
import { versionRoutes } from './version-routes.ts';
import { contentRoutes } from './content-routes.ts';
import { assetRoutes, multipartRoutes } from './asset-routes.ts';
import { webhookRoutes } from './webhook-routes.ts';
import { bulkRoutes } from './bulk-routes.ts';
import { docsRoutes } from './docs-routes.ts';
import { authRoutes } from './auth-routes.ts';
import { userRoutes } from './user-routes.ts';
import { persistedRoutes } from './persisted-routes.ts';
import { schemaRoutes } from './schema-routes.ts';
import { releaseRoutes } from './release-routes.ts';
import { scheduleRoutes } from './schedule-routes.ts';
import { tokenRoutes } from './token-routes.ts';

/**
 * The REST route table. The router, the OpenAPI document and the authorization-matrix test all read
 * this list. Order matters only where paths overlap: fixed prefixes (collections, files, webhooks,
 * releases, bulk) are registered before the `/api/:collection` catch-alls.
 */
export const allRoutes: RouteDef[] = [...docsRoutes(() => allRoutes), ...projectRoutes, ...tokenRoutes, ...persistedRoutes, ...schemaRoutes, ...collectionRoutes, ...versionRoutes, ...scheduleRoutes, ...webhookRoutes, ...releaseRoutes, ...bulkRoutes, ...assetRoutes, ...multipartRoutes, ...authRoutes, ...userRoutes, ...contentRoutes];
