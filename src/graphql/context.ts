import type { EdgeServices } from '../edge/services.ts';
import type { Ctx } from '../context.ts';

/**
 * GraphQL context: authentication is lazy so introspection (GraphiQL) works before headers are set.
 * Its own module because the server builds it, and the schemas' resolvers and the live subscription
 * runtime read it: none of those phases owns it, and none needs to import another for it.
 */
export interface GraphQLContext {
  services: EdgeServices;
  request: Request;
  /** Authenticates on first call (400/401 as AppError) and memoises the operation context. */
  auth(): Promise<Ctx>;
}
